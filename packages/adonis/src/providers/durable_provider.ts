/**
 * The AdonisJS provider: binds the engine as the container singleton `durable.engine`,
 * registers the app's discovered steps and workflows at boot, mounts the webhook route when the
 * config has a `webhookUrl` and the dashboard when the config enables it, drives runs at start only when the config says this process drives, and
 * drains on shutdown.
 */
import { configProvider } from '@adonisjs/core'
import type { ApplicationService } from '@adonisjs/core/types'
import { Engine, type Logger, type StateStore } from '@cairn/core'
import { validateConfig } from '../define_config.ts'
import { appModules } from '../app_modules.ts'
import { workflowsIn } from '../discovery.ts'
import { STEPS_BARREL, WORKFLOWS_BARREL } from '../index_hooks.ts'
import { stepsIn } from '../step_discovery.ts'
import { registerSteps, registerStepsInProcess } from '../step_registration.ts'
import { registerWorkflows } from '../workflow_registration.ts'
import { bindEngine } from '../bound_engine.ts'
import { asConfigError, invalidConfig } from '../errors.ts'
import type { DurableRole, ResolvedDurableConfig } from '../types.ts'
import { resolveTransport } from '../transport_resolution.ts'
import type { EngineTransport } from '@cairn/core/contracts'
import type { Dashboard } from '@cairn/dashboard'
import '../types.ts'

/** App environments in which `drive: true` makes the process drive runs. */
const DRIVING_ENVIRONMENTS = new Set(['web', 'test'])

/** App environments that serve HTTP, where the webhook route and an enabled dashboard are mounted. */
const HTTP_ENVIRONMENTS = new Set(['web', 'test'])

export default class DurableProvider {
  readonly app: ApplicationService
  #config: ResolvedDurableConfig | null = null
  #engine: Engine | null = null
  #dashboard: Dashboard | null = null

  constructor(app: ApplicationService) {
    this.app = app
  }

  register(): void {
    this.app.container.singleton('durable.engine', async () => {
      const config = await this.#resolvedConfig()
      const transports = await this.#engineTransports(config)
      const store = await this.#resolveStore(config)
      const logger = (await this.app.container.make('logger')) as unknown as Logger
      let engine: Engine
      try {
        engine = new Engine({
          store,
          logger,
          transports,
          queues: config.queues,
          ...(config.instanceId === undefined ? {} : { instanceId: config.instanceId }),
          ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
          ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
          ...(config.pollIntervalMs === undefined ? {} : { pollIntervalMs: config.pollIntervalMs }),
          ...(config.codec === undefined ? {} : { codec: config.codec }),
          ...(config.webhookUrl === undefined ? {} : { webhookUrl: config.webhookUrl }),
          ...(config.maxRecoveryAttempts === undefined
            ? {}
            : { maxRecoveryAttempts: config.maxRecoveryAttempts }),
          ...(config.maxCachedRuns === undefined ? {} : { maxCachedRuns: config.maxCachedRuns }),
          schedules: config.schedules,
          ...(config.retention === undefined ? {} : { retention: config.retention }),
          ...(config.stepLogs === undefined ? {} : { stepLogs: config.stepLogs }),
          ...(config.deadLetterWorkflow === undefined
            ? {}
            : { deadLetterWorkflow: config.deadLetterWorkflow }),
        })
      } catch (error) {
        await store.close().catch(() => {})
        throw asConfigError(error, null)
      }
      this.#engine = engine
      return engine
    })
  }

  /**
   * Checks the config, builds the engine and registers the app's steps and workflows: those
   * the generated barrels list (index_hooks.ts), else those found under the configured paths.
   */
  async boot(): Promise<void> {
    const config = await this.#resolvedConfig()
    // A durable:worker holds no store: it builds its worker from the config itself.
    if ((await this.#role()) === 'worker') return
    const engine = await this.app.container.make('durable.engine')
    const root = this.app.makePath()
    const steps = await stepsIn(await appModules(root, config.stepsPath, STEPS_BARREL, 'steps'))
    registerSteps(engine, this.app, steps, config.transport)
    const discovered = await workflowsIn(
      await appModules(root, config.workflowsPath, WORKFLOWS_BARREL, 'workflows'),
    )
    registerWorkflows(engine, this.app, discovered)
    // The same registration for another engine: `durable:replay` replays recorded histories
    // on the app's current code. Steps local there (none ever runs in a replay).
    this.app.container.bindValue('durable.registration', (other: Engine) => {
      registerStepsInProcess(other, this.app, steps)
      registerWorkflows(other, this.app, discovered)
    })
    bindEngine(engine)
    if (config.webhooks !== undefined && HTTP_ENVIRONMENTS.has(this.app.getEnvironment())) {
      const { mountWebhooks } = await import('../webhooks/mount_webhooks.ts')
      await mountWebhooks(this.app, engine, config.webhooks)
    }
    if (config.dashboard.enabled && HTTP_ENVIRONMENTS.has(this.app.getEnvironment())) {
      // Loaded only when enabled: an app without the dashboard never loads its HTTP stack.
      const { mountDashboard } = await import('../dashboard/mount_dashboard.ts')
      this.#dashboard = await mountDashboard(this.app, engine, config.dashboard)
    }
  }

  /**
   * Drives runs when `drive` is true and this is the web server or a test process. In `ready`,
   * not `start`: an app warmed up without being run (`node ace codegen`, the assembler) calls
   * providers' `start` but never their `shutdown`, and a driving engine would keep it alive.
   */
  async ready(): Promise<void> {
    const config = await this.#resolvedConfig()
    if ((await this.#role()) === 'worker') return
    if (config.drive && DRIVING_ENVIRONMENTS.has(this.app.getEnvironment())) {
      await (await this.app.container.make('durable.engine')).startDriving()
    }
  }

  /**
   * Ends the dashboard's live streams, drains (up to `drainTimeoutMs`), hands back what is
   * left, and closes the store.
   */
  async shutdown(): Promise<void> {
    await this.#dashboard?.close()
    this.#dashboard = null
    const engine = this.#engine
    if (engine === null) return
    this.#engine = null
    bindEngine(null)
    await engine.close((await this.#resolvedConfig()).drainTimeoutMs)
  }

  /** The engine half of every configured transport, by name (resolved at boot). */
  async #engineTransports(config: ResolvedDurableConfig): Promise<Record<string, EngineTransport>> {
    const halves: Record<string, EngineTransport> = {}
    for (const name of Object.keys(config.transports)) {
      const pair = await resolveTransport(this.app, config, name)
      halves[name] = pair.engine()
    }
    return halves
  }

  async #role(): Promise<DurableRole> {
    return this.app.container.hasBinding('durable.role')
      ? await this.app.container.make('durable.role')
      : 'engine'
  }

  /** Builds the store `config.store` names (only that one). */
  async #resolveStore(config: ResolvedDurableConfig): Promise<StateStore> {
    const field = `stores.${config.store}`
    let store: StateStore | null
    try {
      store = await configProvider.resolve<StateStore>(this.app, config.stores[config.store])
    } catch (error) {
      throw asConfigError(error, field)
    }
    if (store === null) throw invalidConfig(field, 'did not resolve to a store')
    return store
  }

  /**
   * config/durable.ts, with what this process overrides (durable:work's flags, bound as
   * `durable.overrides` before boot) laid over it, checked once.
   */
  async #resolvedConfig(): Promise<ResolvedDurableConfig> {
    if (this.#config !== null) return this.#config
    const config: unknown = this.app.config.get('durable')
    const overrides = this.app.container.hasBinding('durable.overrides')
      ? await this.app.container.make('durable.overrides')
      : {}
    // A missing or malformed config is reported as it is, not hidden under the overrides.
    const merged =
      config !== null && typeof config === 'object' ? { ...config, ...overrides } : config
    this.#config = validateConfig(merged)
    return this.#config
  }
}
