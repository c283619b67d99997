/**
 * `node ace durable:retry <runId>`: resumes a failed run at the step it failed on
 * (engine.requeue). Its completed steps are replayed, not run again; the run goes back to
 * `pending` for whichever process drives runs (durable:work, or a web server with drive: true).
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DurableCommand } from '../src/ace/durable_command.ts'

export default class DurableRetry extends DurableCommand {
  static override commandName = 'durable:retry'
  static override description = 'Retry a failed durable workflow run from the step it failed on'
  static override options: CommandOptions = { startApp: true }

  declare runId: string

  static {
    this.defineArgument('runId', { type: 'string', description: 'The failed run to retry' })
  }

  override async run(): Promise<void> {
    try {
      const { positionsReset } = await (await this.engine()).requeue(this.runId)
      const steps = positionsReset === 1 ? '1 failed step' : `${positionsReset} failed steps`
      this.logger.success(
        `Run ${this.runId} requeued: ${steps} will run again, completed steps are replayed (a process running durable:work executes it)`,
      )
    } catch (error) {
      this.refuse(error)
    }
  }
}
