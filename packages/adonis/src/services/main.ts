/**
 * The booted app's engine: `import durable from '@cairn/adonis/services/main'`. Available once
 * the app has booted (as every AdonisJS service).
 */
import app from '@adonisjs/core/services/app'
import type { Engine } from '@cairn/core'
import '../types.ts'

let durable: Engine

await app.booted(async () => {
  durable = await app.container.make('durable.engine')
})

export { durable as default }
