import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Every call the app made to the (fake) payment gateway, whatever its outcome: a step body
 * that ran twice (a crash before its result was recorded) shows here as two calls with one
 * idempotency key, and in `payments` as one charge.
 */
export default class extends BaseSchema {
  protected tableName = 'gateway_calls'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.increments('id')
      table.string('order_id', 64).notNullable().index()
      table.string('operation', 16).notNullable() // 'charge' | 'refund'
      table.string('idempotency_key', 300).notNullable()
      table.string('outcome', 16).notNullable() // 'accepted' | 'replayed' | 'declined'
      table.timestamp('called_at', { useTz: true }).notNullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
