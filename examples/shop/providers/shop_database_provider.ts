/**
 * Makes `npm start` need no setup: at the web server's start, before Cairn's provider starts
 * driving runs (it is listed after this one), the shop's tables are migrated and the catalog
 * seeded.
 */
import type { ApplicationService } from '@adonisjs/core/types'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import CatalogSeeder from '#database/seeders/catalog_seeder'

export default class ShopDatabaseProvider {
  protected app: ApplicationService

  constructor(app: ApplicationService) {
    this.app = app
  }

  async start() {
    const db = await this.app.container.make('lucid.db')
    const migrator = new MigrationRunner(db, this.app, { direction: 'up' })
    await migrator.run()
    // The runner records a failed migration instead of throwing: fail the boot with it.
    if (migrator.error !== null) throw migrator.error
    await new CatalogSeeder(db.connection()).run()
  }
}
