import { BaseSchema } from '@adonisjs/lucid/schema'

/** One shipment per order (shipping twice finds the row). */
export default class extends BaseSchema {
  protected tableName = 'shipments'

  override async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.string('order_id', 64).primary()
      table.string('tracking_number', 64).notNullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
    })
  }

  override async down() {
    this.schema.dropTable(this.tableName)
  }
}
