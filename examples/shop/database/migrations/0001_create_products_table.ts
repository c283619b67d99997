import { BaseSchema } from '@adonisjs/lucid/schema'

/** The catalog, with the stock the checkout reserves from. */
export default class extends BaseSchema {
  protected tableName = 'products'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.string('sku', 64).primary()
      table.string('name', 200).notNullable()
      table.integer('price_cents').notNullable()
      table.integer('stock').notNullable()
      // The fake carrier refuses products that cannot ship: the demo's failing step.
      table.boolean('can_ship').notNullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
