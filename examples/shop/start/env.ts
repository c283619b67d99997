/**
 * The shop's environment variables, validated at boot. Every one is optional so that
 * `npm start` needs no .env file; a .env in this directory is read if present.
 */
import { Env } from '@adonisjs/core/env'

export default await Env.create(new URL('../', import.meta.url), {
  NODE_ENV: Env.schema.enum.optional(['development', 'production', 'test'] as const),
  HOST: Env.schema.string.optional({ format: 'host' }),
  PORT: Env.schema.number.optional(),
  LOG_LEVEL: Env.schema.enum.optional([
    'fatal',
    'error',
    'warn',
    'info',
    'debug',
    'trace',
    'silent',
  ] as const),
  APP_KEY: Env.schema.secret.optional(),

  /** `sqlite` (default: a file under tmp/, no setup) or `pg` (the PG_* variables). */
  DB_CONNECTION: Env.schema.enum.optional(['sqlite', 'pg'] as const),
  SQLITE_FILE: Env.schema.string.optional(),
  PG_HOST: Env.schema.string.optional({ format: 'host' }),
  PG_PORT: Env.schema.number.optional(),
  PG_USER: Env.schema.string.optional(),
  PG_PASSWORD: Env.schema.string.optional(),
  PG_DB_NAME: Env.schema.string.optional(),

  /** This process's identity for Cairn's leases: a restart with the same id resumes its runs at once. */
  DURABLE_INSTANCE_ID: Env.schema.string.optional(),
  /** A bearer token (16+ characters) for the dashboard at /durable; without one it is open in development only. */
  DURABLE_DASHBOARD_TOKEN: Env.schema.string.optional(),
  /** 32 bytes, base64: encrypts every payload Cairn stores (app/services/payload_encryption.ts). */
  DURABLE_PAYLOAD_KEY: Env.schema.string.optional(),
  /** The public address of the webhook route (default: http://localhost:<PORT>/durable/webhooks). */
  DURABLE_WEBHOOK_URL: Env.schema.string.optional({ format: 'url', tld: false }),

  /** Orders above this amount (in cents) wait for a manager's approval. */
  SHOP_APPROVAL_THRESHOLD_CENTS: Env.schema.number.optional(),
  /** How long an order waits for approval before it is cancelled (and refunded). */
  SHOP_APPROVAL_TIMEOUT_MS: Env.schema.number.optional(),
  SHOP_ABANDON_AFTER_MS: Env.schema.number.optional(),
  /** How long a completed checkout's run is kept (failed ones three times as long). */
  SHOP_KEEP_RUNS_MS: Env.schema.number.optional(),
  /** How often expired runs are swept (at least 1000). */
  SHOP_RETENTION_INTERVAL_MS: Env.schema.number.optional(),
  /** Test-only fault injection; see app/services/fault_injection.ts. */
  SHOP_FAULT: Env.schema.enum.optional(['hang-after-charge'] as const),
})
