/**
 * `node ace durable:work`: this process executes durable runs until SIGINT/SIGTERM, then
 * drains and exits 0. It is the explicit way to drive runs from the console: the provider never
 * drives in console commands or the REPL, whatever `drive` says.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { DrainResult } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { bindOverrides, workOverrides } from '../src/ace/work_flags.ts'
import { WorkSession } from '../src/ace/work_session.ts'
import { validateConfig } from '../src/define_config.ts'
import type { DurableOverrides } from '../src/types.ts'

export default class DurableWork extends DurableCommand {
  static override commandName = 'durable:work'
  static override description =
    'Execute durable workflow runs in this process until SIGINT/SIGTERM, then drain and exit'
  static override help = [
    'The first SIGINT/SIGTERM drains: executing runs finish or suspend, for up to the drain timeout, and the rest are handed back to the store. A second signal hands back at once and exits with code 1.',
  ]
  // run() boots the app itself: the flags must be bound (durable.overrides) before the engine is built.
  static override options: CommandOptions = { startApp: false, staysAlive: true }

  declare concurrency?: number
  declare instanceId?: string
  declare drainTimeout?: number

  static {
    this.defineFlag('concurrency', {
      type: 'number',
      description: 'Most runs executing at once (default: config concurrency)',
    })
    this.defineFlag('instanceId', {
      type: 'string',
      description: 'Lease identity of this process (default: config instanceId)',
    })
    this.defineFlag('drainTimeout', {
      type: 'number',
      description:
        'How long shutdown lets executing runs finish, in ms (default: config drainTimeoutMs)',
    })
  }

  override async run(): Promise<void> {
    let overrides: DurableOverrides
    try {
      overrides = workOverrides(this)
      bindOverrides(this.app, overrides)
    } catch (error) {
      this.refuse(error)
      return this.terminate()
    }
    try {
      await this.app.boot()
      await this.app.start(() => {})
      const drained = await this.#work(overrides)
      this.exitCode = 0
      await this.terminate()
      // Step bodies of handed-back runs may still be running (a body that ignores its abort
      // signal); their runs continue elsewhere, so nothing they do matters and they must not
      // keep the process up.
      if (!drained.finished) process.exit(0)
    } catch (error) {
      // Set before terminating: for a command that stays alive, Ace takes the process exit code
      // from the command when the app terminates.
      this.exitCode = 1
      await this.terminate()
      // A Cairn error (invalid config, store unreachable) says what is wrong without a stack.
      this.refuse(error)
    }
  }

  /** Drives until a stop signal's drain is over; resolves with how the drain ended. */
  async #work(overrides: DurableOverrides): Promise<DrainResult> {
    const engine = await this.engine()
    const config = validateConfig({ ...this.app.config.get<object>('durable'), ...overrides })
    const workflows = engine.registeredWorkflows()
    this.logger.info(
      `Cairn worker "${engine.instanceId}": store "${config.store}" (${engine.store.kind}), concurrency ${engine.options.concurrency}, drain timeout ${config.drainTimeoutMs} ms`,
    )
    this.logger.info(
      `${workflows.length} workflow version(s) registered${workflows.length === 0 ? '' : ': '}${workflows.map((w) => `${w.workflow}@${w.version}`).join(', ')}`,
    )
    const session = new WorkSession(engine, {
      drainTimeoutMs: config.drainTimeoutMs,
      log: this.logger,
      exit: (code) => process.exit(code),
    })
    const stopped = session.untilStopped()
    try {
      await engine.startDriving()
    } catch (error) {
      session.dispose()
      throw error
    }
    this.logger.info('Driving runs. SIGINT or SIGTERM drains and stops.')
    const { drained } = await stopped
    this.logger.info(
      drained.finished
        ? 'Drained: every executing run finished or suspended'
        : `Drain timeout reached: ${drained.released} run(s) handed back to the store`,
    )
    return drained
  }
}
