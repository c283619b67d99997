import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  commands: [
    () => import('@adonisjs/core/commands'),
    () => import('@adonisjs/lucid/commands'),
    () => import('@cairn/adonis/commands'),
  ],
  providers: [
    () => import('@adonisjs/core/providers/app_provider'),
    () => import('@adonisjs/core/providers/vinejs_provider'),
    () => import('@adonisjs/lucid/database_provider'),
    // Before Cairn's: its start() migrates the app's tables before Cairn begins driving runs,
    // and providers shut down in reverse order, so Cairn drains before Lucid closes.
    { file: () => import('#providers/shop_database_provider'), environment: ['web'] },
    () => import('@cairn/adonis/durable_provider'),
  ],
  preloads: [() => import('#start/routes'), () => import('#start/kernel')],
})
