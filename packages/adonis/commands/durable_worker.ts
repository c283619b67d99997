/**
 * `node ace durable:worker`: runs the app's remote steps — the steps of `app/steps` placed on a
 * transport — for any engine, until SIGINT/SIGTERM, then drains and exits 0. It holds no store:
 * the provider builds no engine in this process, and the worker speaks to engines only through
 * the transport (docs/workers.md). Step classes are built through the container as in an
 * engine, so their `@inject()` services (Lucid, the app's own) work here too.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import {
  checkStepSchemas,
  InvalidArgumentError,
  schemaCheckedHandler,
  type Logger,
  type StepHandler,
} from '@cairn/core'
import { createWorker, type Worker } from '@cairn/worker'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { workerOverrides } from '../src/ace/worker_flags.ts'
import { appModules } from '../src/app_modules.ts'
import { validateConfig } from '../src/define_config.ts'
import { STEPS_BARREL } from '../src/index_hooks.ts'
import { stepsIn } from '../src/step_discovery.ts'
import { stepHandler } from '../src/step_registration.ts'
import { resolveTransport } from '../src/transport_resolution.ts'
import type { ResolvedDurableConfig } from '../src/types.ts'

export default class DurableWorkerCommand extends DurableCommand {
  static override commandName = 'durable:worker'
  static override description =
    'Run the remote steps of app/steps from a transport, without the store, until SIGINT/SIGTERM, then drain and exit'
  static override help = [
    'Serves every step of app/steps placed on the transport (its own `transport`, or config `transport`). The first SIGINT/SIGTERM stops taking tasks and lets running ones finish for up to the drain timeout; the rest are handed back to the transport for another worker. A second signal (a second or more after the first) exits at once with code 1.',
  ]
  static override options: CommandOptions = { startApp: false, staysAlive: true }

  declare transport?: string
  declare concurrency?: string
  declare capabilities?: string
  declare workerId?: string
  declare drainTimeout?: number
  declare heartbeatTimeout?: number

  static {
    this.defineFlag('transport', {
      type: 'string',
      description: 'The transport to serve (default: config transport, or the only one)',
    })
    this.defineFlag('concurrency', {
      type: 'string',
      description:
        'Most steps running at once: a number (default 10), "adaptive", or "adaptive:MIN-MAX" (moved by event-loop, CPU and memory load)',
    })
    this.defineFlag('capabilities', {
      type: 'string',
      description: 'What this worker offers, comma-separated (steps that require them come here)',
    })
    this.defineFlag('workerId', { type: 'string', description: 'Its id (default host-pid-random)' })
    this.defineFlag('heartbeatTimeout', {
      type: 'number',
      description:
        'How long a task stays held without a heartbeat before it is delivered to another worker, in ms (default 30000)',
    })
    this.defineFlag('drainTimeout', {
      type: 'number',
      description:
        'How long a stop lets running steps finish, in ms (default: config drainTimeoutMs)',
    })
  }

  override async run(): Promise<void> {
    // Listening from the first line: bin/console.ts's own SIGTERM listener (app.terminate())
    // keeps Node from exiting on a signal, so one that came while the app booted or the worker
    // started, unheard here, left the worker taking tasks for good once it had started.
    const stop = new StopSignals(this.logger)
    let failure: { error: unknown } | null = null
    try {
      workerOverrides(this) // flags checked before anything boots
      this.app.container.bindValue('durable.role', 'worker')
      await this.app.boot()
      await this.app.start(() => {})
      const config = validateConfig(this.app.config.get<object>('durable'))
      const worker = await this.#worker(config)
      const drainMs = workerOverrides(this).drainTimeoutMs ?? config.drainTimeoutMs
      const closed = stop.requested.then((signal) => {
        this.logger.info(`${signal} received: draining for up to ${drainMs} ms`)
        return worker.close(drainMs)
      })
      // A stop during the start ends it (Worker.close); a stop before it, nothing starts.
      if (!stop.received) await worker.start()
      if (!stop.received) this.logger.info('Taking tasks. SIGINT or SIGTERM drains and stops.')
      await closed
      this.exitCode = 0
    } catch (error) {
      this.exitCode = 1
      failure = { error }
    } finally {
      stop.dispose()
    }
    exitIfHeld(this.logger, this.exitCode ?? 1)
    await this.terminate()
    if (failure !== null) this.refuse(failure.error)
  }

  async #worker(config: ResolvedDurableConfig): Promise<Worker> {
    const flags = workerOverrides(this)
    const name = transportName(config, flags.transport)
    const pair = await resolveTransport(this.app, config, name)
    const root = this.app.makePath()
    const discovered = await stepsIn(
      await appModules(root, config.stepsPath, STEPS_BARREL, 'steps'),
    )
    const steps: Record<string, StepHandler<never, unknown>> = {}
    for (const entry of discovered) {
      const { handler, options } = stepHandler(this.app, entry)
      if ((options.transport ?? config.transport) !== name) continue
      // The step's own schemas run here, where its handler runs (docs/validation.md).
      checkStepSchemas(entry.name, options)
      steps[entry.name] = schemaCheckedHandler(entry.name, handler, options) as StepHandler<
        never,
        unknown
      >
    }
    const names = Object.keys(steps)
    if (names.length === 0)
      throw new InvalidArgumentError(
        `no step of ${config.stepsPath} runs on transport "${name}" (place one with transport: "${name}", or set config transport)`,
        { details: { transport: name } },
      )
    const logger = (await this.app.container.make('logger')) as unknown as Logger
    const worker = createWorker({
      transport: pair.worker(),
      steps,
      logger,
      ...(config.codec === undefined ? {} : { codec: config.codec }),
      ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
      ...(flags.capabilities === undefined ? {} : { capabilities: flags.capabilities }),
      ...(flags.workerId === undefined ? {} : { workerId: flags.workerId }),
      ...(flags.holdMs === undefined ? {} : { holdMs: flags.holdMs }),
    })
    this.logger.info(
      `Cairn worker "${worker.id}" on transport "${name}": ${names.length} step(s): ${names.join(', ')}`,
    )
    return worker
  }
}

/** Signals this close after the first are one stop request delivered twice. */
const REPEAT_WINDOW_MS = 1_000

/** How long the process may stay up once the worker closed (the app's shutdown included). */
const EXIT_GRACE_MS = 5_000

type UiLogger = DurableWorkerCommand['logger']

/**
 * The stop signals, from the command's start to its end. The first is the stop (`requested`);
 * a second, a second or more after it, exits at once. A repeat within a second of the first is
 * the same request delivered twice — a terminal's Ctrl-C reaches the whole process group, and a
 * launcher (npm, the shop's bin/start.ts) forwards it too — not an operator asking to skip the
 * drain. Prepended, so the drain begins before the app's own SIGTERM handler runs.
 */
class StopSignals {
  readonly requested: Promise<NodeJS.Signals>
  #firstAt: number | null = null
  #listener: (signal: NodeJS.Signals) => void = () => {}

  constructor(logger: UiLogger) {
    this.requested = new Promise((resolve) => {
      this.#listener = (signal) => {
        if (this.#firstAt === null) {
          this.#firstAt = Date.now()
          resolve(signal)
        } else if (Date.now() - this.#firstAt >= REPEAT_WINDOW_MS) {
          logger.warning(`${signal} received again: exiting without waiting`)
          process.exit(1)
        }
      }
    })
    for (const signal of SIGNALS) process.prependListener(signal, this.#listener)
  }

  get received(): boolean {
    return this.#firstAt !== null
  }

  dispose(): void {
    for (const signal of SIGNALS) process.removeListener(signal, this.#listener)
  }
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

/**
 * Once the worker closed, nothing of it needs the process; what still holds it — a step body
 * that ignored its abort signal (its attempt already completed as failed, to be retried
 * elsewhere), a connection a transport or a provider's shutdown could not end — must not keep
 * it up. Unref'd: a process with nothing left exits on its own first.
 */
function exitIfHeld(logger: UiLogger, code: number): void {
  setTimeout(() => {
    logger.warning(
      `still running ${EXIT_GRACE_MS} ms after the worker closed (${process.getActiveResourcesInfo().join(', ')}): exiting`,
    )
    process.exit(code)
  }, EXIT_GRACE_MS).unref()
}

/** The flag's transport, else config `transport`, else the only one configured. */
function transportName(config: ResolvedDurableConfig, flag: string | undefined): string {
  const names = Object.keys(config.transports)
  if (names.length === 0)
    throw new InvalidArgumentError(
      'config/durable.ts has no transports: a worker has nothing to serve',
    )
  const name = flag ?? config.transport ?? (names.length === 1 ? names[0] : undefined)
  if (name === undefined)
    throw new InvalidArgumentError(
      `several transports (${names.join(', ')}) and no config transport: pass --transport`,
      { details: { flag: 'transport' } },
    )
  if (!names.includes(name))
    throw new InvalidArgumentError(
      `--transport ${JSON.stringify(name)} is not one of config transports (${names.join(', ')})`,
      { details: { flag: 'transport' } },
    )
  return name
}
