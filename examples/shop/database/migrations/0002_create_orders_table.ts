import { BaseSchema } from '@adonisjs/lucid/schema'

/** One row per order; the checkout run (`run_id`) moves its status along. */
export default class extends BaseSchema {
  protected tableName = 'orders'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.string('id', 64).primary()
      table.string('run_id', 255).notNullable().unique()
      table.string('sku', 64).notNullable()
      table.integer('quantity').notNullable()
      table.integer('amount_cents').notNullable()
      // Only the last four digits are kept; the full number travels in the run's input only.
      table.string('card_last4', 4).notNullable()
      table.boolean('needs_approval').notNullable()
      table.string('status', 32).notNullable()
      table.string('approved_by', 100).nullable()
      table.text('failure_reason').nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
