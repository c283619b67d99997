import env from '#start/env'
import { defineConfig, stores, transports } from '@cairn/adonis'
import { aesGcmTransform } from '#services/payload_encryption'
import shop from '#config/shop'

export default defineConfig({
  store: 'lucid',
  // Lucid's primary connection (config/database.ts): Cairn's tables live next to the shop's.
  stores: { lucid: stores.lucid() },
  // Stable, so a restarted server takes its unfinished runs back at once instead of waiting
  // for their leases to expire. Give each process on a shared database its own.
  instanceId: env.get('DURABLE_INSTANCE_ID', 'shop-web-1'),
  // The web server executes checkout runs itself…
  drive: true,
  // …except the charge step (app/steps/charge_card_step.ts names this transport): it runs on
  // `node ace durable:worker` (npm start starts one), over the shop's own database — no broker.
  transports: { db: transports.db() },
  // The payment gateway takes at most four calls at once and twenty per second from the whole
  // shop: the charge step holds one of these slots per attempt, and each attempt counts against
  // the rate, across every web process and worker (a checkout waiting for either shows
  // `waiting` on `queue "payment-gateway"` in the dashboard; its Queues page shows the rate).
  queues: {
    'payment-gateway': { concurrency: 4, rateLimit: { limit: 20, periodMs: 1_000 } },
  },
  // Finished runs do not stay forever (docs/retention.md): every process that drives runs sweeps
  // them in the background. A completed checkout (or delivery) goes after 30 days — its order
  // stays in the shop's own tables; its page just no longer shows the run — one that failed,
  // was cancelled or went dead after 90, long enough to look into it (and long past the
  // nightly cleanup, which reads how a checkout ended); the cleanup keeps its last 30 nights.
  retention: {
    policies: [
      { workflow: 'checkout', statuses: ['completed'], maxAge: shop.keepRunsMs },
      { workflow: 'delivery', statuses: ['completed'], maxAge: shop.keepRunsMs },
      {
        workflow: 'checkout',
        statuses: ['failed', 'cancelled', 'dead'],
        maxAge: 3 * shop.keepRunsMs,
      },
      { workflow: 'abandoned-orders', statuses: ['completed', 'failed'], maxCount: 30 },
    ],
    interval: shop.retentionIntervalMs,
  },
  // The operations dashboard at /durable. With no token it is open in development (`npm
  // start`) and answers 401 everywhere else; DURABLE_DASHBOARD_TOKEN lets API clients in
  // (Authorization: Bearer …) and the console's login page.
  dashboard: {
    enabled: true,
    path: '/durable',
    tokens: dashboardTokens(),
  },
  // With DURABLE_PAYLOAD_KEY, every payload is stored encrypted (AES-256-GCM); the engine, the
  // dashboard and the routes still see the values. Without it (`npm start`), they are stored
  // as readable JSON. Every process on the database needs the same key.
  ...payloadEncryption(),
  // Where carriers deliver their callbacks (ctx.webhook()): POST /durable/webhooks/:token,
  // mounted by the provider outside the dashboard's auth — the token is the caller's only
  // credential. The address handed out is this URL, so set it to the public one.
  webhookUrl: env.get(
    'DURABLE_WEBHOOK_URL',
    `http://localhost:${env.get('PORT', 3333)}/durable/webhooks`,
  ),
  webhooks: { maxBodyBytes: 256 * 1024 },
})

function dashboardTokens(): string[] {
  const token = env.get('DURABLE_DASHBOARD_TOKEN')
  return token === undefined ? [] : [token]
}

function payloadEncryption() {
  const key = env.get('DURABLE_PAYLOAD_KEY')
  return key === undefined ? {} : { codec: { transform: aesGcmTransform(key) } }
}
