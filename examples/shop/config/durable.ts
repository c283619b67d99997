import env from '#start/env'
import { defineConfig, stores } from '@cairn/adonis'

export default defineConfig({
  store: 'lucid',
  // Lucid's primary connection (config/database.ts): Cairn's tables live next to the shop's.
  stores: { lucid: stores.lucid() },
  // Stable, so a restarted server takes its unfinished runs back at once instead of waiting
  // for their leases to expire. Give each process on a shared database its own.
  instanceId: env.get('DURABLE_INSTANCE_ID', 'shop-web-1'),
  // The web server executes checkout runs itself; no separate worker is needed.
  drive: true,
})
