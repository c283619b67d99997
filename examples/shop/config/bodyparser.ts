import { defineConfig } from '@adonisjs/core/bodyparser'

// The API takes JSON only: the other parsers accept no content type.
export default defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  json: {
    encoding: 'utf-8',
    limit: '64kb',
    strict: true,
    types: ['application/json'],
  },
  form: { types: [] },
  raw: { types: [] },
  multipart: { types: [] },
})
