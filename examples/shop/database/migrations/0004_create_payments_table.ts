import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The payments ledger: money the (fake) gateway moved, one row per charge or refund. The
 * idempotency key is unique: a retried call with the same key moves no money twice.
 */
export default class extends BaseSchema {
  protected tableName = 'payments'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.string('id', 64).primary()
      table.string('order_id', 64).notNullable().index()
      table.string('kind', 16).notNullable() // 'charge' | 'refund'
      table.integer('amount_cents').notNullable()
      table.string('idempotency_key', 300).notNullable().unique()
      table.timestamp('created_at', { useTz: true }).notNullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
