/**
 * `node ace durable:cancel <runId>`: cancels a run that has not finished (engine.cancel). With
 * `--compensate` the run undoes its completed steps first (saga cancel), which needs a process
 * that drives runs.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DurableCommand } from '../src/ace/durable_command.ts'

export default class DurableCancel extends DurableCommand {
  static override commandName = 'durable:cancel'
  static override description = 'Cancel a durable workflow run that has not finished'
  static override options: CommandOptions = { startApp: true }

  declare runId: string
  declare compensate?: boolean
  declare reason?: string

  static {
    this.defineArgument('runId', { type: 'string', description: 'The run to cancel' })
    this.defineFlag('compensate', {
      type: 'boolean',
      description:
        "Undo the run's completed steps (their compensations, newest first), then cancel",
    })
    this.defineFlag('reason', {
      type: 'string',
      description: "Recorded as the cancelled run's error message",
    })
  }

  override async run(): Promise<void> {
    try {
      const engine = await this.engine()
      const reason = this.reason ?? 'cancelled with node ace durable:cancel'
      await engine.cancel(this.runId, { reason, compensate: this.compensate === true })
      this.logger.success(
        this.compensate === true
          ? `Run ${this.runId} will compensate and then end cancelled: its next turn undoes its completed steps (a process running durable:work executes it)`
          : `Run ${this.runId} cancelled`,
      )
    } catch (error) {
      this.refuse(error)
    }
  }
}
