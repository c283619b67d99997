import env from '#start/env'
import app from '@adonisjs/core/services/app'
import { Secret } from '@adonisjs/core/helpers'
import { defineConfig } from '@adonisjs/core/http'

/**
 * The example encrypts nothing, but AdonisJS 7 requires an app key. A fixed one keeps
 * `npm start` free of setup; an app of your own must set APP_KEY (`node ace generate:key`).
 */
export const appKey = env.get('APP_KEY') ?? new Secret('cairn-example-shop-not-a-real-secret')

export const http = defineConfig({
  generateRequestId: true,
  allowMethodSpoofing: false,
  useAsyncLocalStorage: false,
  cookie: {
    domain: '',
    path: '/',
    maxAge: '2h',
    httpOnly: true,
    secure: app.inProduction,
    sameSite: 'lax',
  },
})
