/**
 * `node ace durable:delete <runId>`: deletes a finished run with its child runs and every row
 * of theirs (engine.deleteRun, docs/retention.md). Refused (E_RUN_NOT_DELETABLE, naming the
 * run that blocks) while the run, a descendant or its parent is open.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DurableCommand } from '../src/ace/durable_command.ts'

export default class DurableDelete extends DurableCommand {
  static override commandName = 'durable:delete'
  static override description = 'Delete a finished durable workflow run with its child runs'
  static override help = [
    'Deletes the run, its child runs and every row of theirs (steps, signals, tags, search attributes). It cannot be undone.',
    'Only a finished run (completed, failed, cancelled, continued, dead) whose parent, if any, is finished too.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare runId: string

  static {
    this.defineArgument('runId', { type: 'string', description: 'The finished run to delete' })
  }

  override async run(): Promise<void> {
    try {
      const { runs } = await (await this.engine()).deleteRun(this.runId)
      this.logger.success(
        runs === 1
          ? `Run ${this.runId} deleted`
          : `Run ${this.runId} deleted with ${runs - 1} descendant run(s) (${runs} runs in all)`,
      )
    } catch (error) {
      this.refuse(error)
    }
  }
}
