import { defineConfig } from '@adonisjs/core/bodyparser'

// The API takes JSON only (the other parsers accept no content type), as it was sent: AdonisJS
// trims strings and turns "" into null by default, which would change a value the validator
// should see and refuse.
export default defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  json: {
    encoding: 'utf-8',
    limit: '64kb',
    strict: true,
    types: ['application/json'],
    trimWhitespaces: false,
    convertEmptyStringsToNull: false,
  },
  form: { types: [] },
  raw: { types: [] },
  multipart: { types: [] },
})
