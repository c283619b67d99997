import { BaseSeeder } from '@adonisjs/lucid/seeders'

/**
 * The demo catalog. Runs at every boot of the web server and inserts only the products that
 * are missing, so stock taken by earlier orders is kept across restarts.
 */
export const CATALOG = [
  { sku: 'mug', name: 'Cairn mug', price_cents: 1_200, stock: 100, can_ship: true },
  { sku: 'poster', name: 'Trail map poster', price_cents: 2_500, stock: 50, can_ship: true },
  // Above the default approval threshold ($500): waits for POST /orders/:id/approve.
  { sku: 'espresso', name: 'Espresso machine', price_cents: 89_900, stock: 10, can_ship: true },
  // The carrier refuses it: the run fails at "ship" and the payment and stock are undone.
  { sku: 'vase', name: 'Fragile glass vase', price_cents: 4_000, stock: 20, can_ship: false },
]

export default class CatalogSeeder extends BaseSeeder {
  override async run() {
    await this.client.table('products').insert(CATALOG).onConflict('sku').ignore()
  }
}
