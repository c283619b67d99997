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
  // The operations dashboard at /durable. With no token it is open in development (`npm
  // start`) and answers 401 everywhere else; DURABLE_DASHBOARD_TOKEN lets API clients in
  // (Authorization: Bearer …) and the console's login page.
  dashboard: {
    enabled: true,
    path: '/durable',
    tokens: dashboardTokens(),
  },
})

function dashboardTokens(): string[] {
  const token = env.get('DURABLE_DASHBOARD_TOKEN')
  return token === undefined ? [] : [token]
}
