/**
 * The shapes of `config/durable.ts` and the container binding the provider adds. Types only.
 */
import type {
  DurableDashboardConfig,
  ResolvedDashboardConfig,
} from './dashboard/dashboard_config.ts'
import type { Codec, Engine, StateStore } from '@cairn/core'
import type { ConfigProvider } from '@adonisjs/core/types'
import type { DurableCodecOptions } from './codec_config.ts'
import type { DeclaredSchedule, QueueOptions, RetentionOptions, StepLogOptions } from '@cairn/core'
import type { TransportProvider } from './transports.ts'
import type { DurableWebhooksConfig, ResolvedWebhooksConfig } from './webhooks/webhook_config.ts'

/** A store, built lazily at boot: only the store `config.store` names is ever built. */
export type StoreProvider = ConfigProvider<StateStore>

/** What `defineConfig` takes (and returns, checked). */
export interface DurableConfig<
  Stores extends Record<string, StoreProvider> = Record<string, StoreProvider>,
> {
  /** The key in `stores` this application uses. */
  store: keyof Stores & string
  /** The stores this application may use: `stores.sqlite(…)`, `stores.lucid(…)`. */
  stores: Stores
  /**
   * Identity of this process for the engine's leases. Give a stable one per host/slot so a
   * restarted process reclaims its runs at once. Default: host-pid-random.
   */
  instanceId?: string
  /** Lease length (ms); a dead process's runs are recovered this long after its last renewal. Default 30 000. */
  leaseMs?: number
  /** Most runs executing at once in this process when it drives. Default 100. */
  concurrency?: number
  /** Safety-net poll interval (ms) for work started by other processes. Default 1 000. */
  pollIntervalMs?: number
  /** How long shutdown lets executing runs finish before handing them back (ms; `Infinity`: as long as they take). Default 10 000. */
  drainTimeoutMs?: number
  /**
   * Whether the web server and test processes (app environments `web` and `test`) drive runs
   * too. Default false: they only start and read runs. Console commands and the REPL never
   * drive through this option.
   */
  drive?: boolean
  /** Where workflow classes are discovered, relative to the app root. Default `app/workflows`. */
  workflowsPath?: string
  /** Where step classes and defineStep modules are discovered, relative to the app root. Default `app/steps`. */
  stepsPath?: string
  /** The operations dashboard, mounted on the app's router (docs/adonis.md#dashboard). */
  dashboard?: DurableDashboardConfig
  /**
   * How payloads (inputs, outputs, step results, errors) become the text the store keeps
   * (docs/codec.md): the default codec's options — `maxBytes`, `maxDepth`, and `transform`, a
   * `{ encode(text), decode(text) }` pair that encrypts or compresses every payload at rest —
   * or a codec of your own (`{ encode, decode }`). Every process on the store needs the same.
   * Checked when the config loads, with one test payload through it. Default: core's codec.
   */
  codec?: Codec | DurableCodecOptions
  /**
   * The public base address of this app's webhook route (e.g.
   * `https://shop.example.com/durable/webhooks`): `ctx.webhook()` hands out
   * `<webhookUrl>/<token>`, and the web server mounts `POST <path>/:token` at its path
   * (docs/webhooks.md). Default: none — webhook URLs are null and nothing is mounted.
   */
  webhookUrl?: string
  /** The receiving route: its path when not the one of `webhookUrl`, and its body limit. Needs `webhookUrl`. */
  webhooks?: DurableWebhooksConfig
  /**
   * Transports for remote steps (docs/remote-steps.md): `{ db: transports.db(), bullmq:
   * transports.bullmq({ connection }) }`. A step placed on one (`static step = { name,
   * transport: 'db' }`, `defineStep(…, { transport })`) runs on `node ace durable:worker`.
   */
  transports?: Record<string, TransportProvider>
  /** The transport of every step in `app/steps` that names none. Default: none (in process). */
  transport?: string
  /**
   * Named queues steps can be called on (docs/flow-control.md "Queues"): `{ carrier: {
   * concurrency: 4 } }`; a step takes one of its queue's slots per attempt (`static step = {
   * name, queue: 'carrier' }` or `ctx.step(ref, input, { queue })`). Default: none.
   */
  queues?: Record<string, QueueOptions>
  /**
   * Takeovers a run may take without moving on before it ends `dead` (docs/dead-letters.md):
   * 0 to 1000, or `Infinity`. Default 5.
   */
  maxRecoveryAttempts?: number
  /**
   * Suspended runs each engine keeps in memory, their body paused where it waits, so the next
   * turn goes on instead of replaying (docs/run-cache.md): 0 (off) to 100000. Default 1000.
   */
  maxCachedRuns?: number
  /**
   * The workflow every `dead` or `failed` run starts as `dlq:<runId>` with a `DeadLetter`
   * input; a workflow's own `static workflow = { deadLetterWorkflow }` (or `deadLetter`
   * method) overrides it. Default: none.
   */
  deadLetterWorkflow?: string
  /**
   * Schedules (docs/schedules.md): `[{ id, workflow, cron, timezone?, overlap?, … }]`, put in
   * the store by every process that drives runs. A workflow class may declare its own with
   * `static schedule`. Default: none.
   */
  schedules?: readonly DeclaredSchedule[]
  /**
   * Retention policies (docs/retention.md): `{ policies: [{ statuses: ['completed'], maxAge:
   * '7 days' }] }`. Every process that drives runs sweeps finished runs past them. Default:
   * runs are kept forever.
   */
  retention?: RetentionOptions
  /**
   * Step logs (docs/step-logs.md): `{ maxEntries, flushIntervalMs }` — lines a step position
   * keeps (default 200) and how often a running step's lines are written (default 1000 ms).
   */
  stepLogs?: StepLogOptions
}

/** The config after `defineConfig`: every default filled in. */
export interface ResolvedDurableConfig {
  store: string
  stores: Record<string, StoreProvider>
  instanceId: string | undefined
  leaseMs: number | undefined
  concurrency: number | undefined
  pollIntervalMs: number | undefined
  drainTimeoutMs: number
  drive: boolean
  workflowsPath: string
  stepsPath: string
  dashboard: ResolvedDashboardConfig
  codec: Codec | undefined
  webhookUrl: string | undefined
  /** Present exactly when `webhookUrl` is. */
  webhooks: ResolvedWebhooksConfig | undefined
  transports: Record<string, TransportProvider>
  transport: string | undefined
  queues: Readonly<Record<string, QueueOptions>>
  maxRecoveryAttempts: number | undefined
  maxCachedRuns: number | undefined
  deadLetterWorkflow: string | undefined
  schedules: readonly DeclaredSchedule[]
  retention: RetentionOptions | undefined
  stepLogs: StepLogOptions | undefined
}

/**
 * Settings one process lays over config/durable.ts (`durable:work --concurrency …`): bound in
 * the container as `durable.overrides` before the app boots, read by the provider at boot.
 */
export type DurableOverrides = Partial<
  Pick<DurableConfig, 'instanceId' | 'concurrency' | 'drainTimeoutMs'>
>

/**
 * What this process is: an engine (the default) or a store-less `durable:worker`, for which the
 * provider builds no engine and opens no store. Bound before boot as `durable.role`.
 */
export type DurableRole = 'engine' | 'worker'

declare module '@adonisjs/core/types' {
  interface ContainerBindings {
    'durable.engine': Engine
    /** Registers the app's steps (all local) and workflows on another engine (durable:replay). */
    'durable.registration': (engine: Engine) => void
    'durable.overrides': DurableOverrides
    'durable.role': DurableRole
  }
}
