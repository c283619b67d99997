import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Stock taken for an order, one row per order: reserving twice (a step re-run after a crash)
 * finds the row instead of taking stock again, and releasing twice gives it back once.
 */
export default class extends BaseSchema {
  protected tableName = 'stock_reservations'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.string('order_id', 64).primary()
      table.string('sku', 64).notNullable()
      table.integer('quantity').notNullable()
      table.timestamp('reserved_at', { useTz: true }).notNullable()
      table.timestamp('released_at', { useTz: true }).nullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
