/**
 * `node ace durable:replay <file…>`: replays recorded run histories (`engine.exportHistory`,
 * the dashboard's "Download history", `cairn run <id> --history`) on the app's current
 * workflow code, the way a run resuming after a deploy would (docs/replay-testing.md). Each
 * history is replayed on a memory store with the app's own registration — its workflow
 * classes and steps, built by the container — and no step runs. Exit code 1 when one does not
 * match (E_NON_DETERMINISM: the same message a production park shows), parks for another
 * reason, fails where the recorded run had not, or cannot be read.
 */
import { readFile } from 'node:fs/promises'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { CairnError } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { replayFails, replayLine } from '../src/ace/replay_view.ts'

export default class DurableReplay extends DurableCommand {
  static override commandName = 'durable:replay'
  static override description = 'Replay recorded run histories on the current workflow code'
  static override help = [
    'Each file is a history exported with engine.exportHistory, the dashboard or `cairn run <id> --history`.',
    'Fails (exit code 1) when the code no longer matches a history: deploying it would park such runs.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare files: string[]

  static {
    this.defineArgument('files', {
      type: 'spread',
      description: 'History files (JSON) to replay',
    })
  }

  override async run(): Promise<void> {
    const { replayHistory } = await import('@cairn/core/testing')
    const register = await this.app.container.make('durable.registration')
    const codec = (await this.engine()).options.codec
    for (const file of this.files) {
      try {
        const history = JSON.parse(await readFile(file, 'utf8')) as Parameters<
          typeof replayHistory
        >[1]
        const report = await replayHistory({ register }, history, { codec })
        const recorded = history.run.status
        // A park of another kind (a step the code no longer registers, …), or a run that now
        // fails where the recorded one had not, fails a deploy too.
        if (replayFails(report, recorded)) {
          this.exitCode = 1
          this.logger.error(replayLine(file, report, recorded))
        } else this.logger.success(replayLine(file, report, recorded))
      } catch (error) {
        this.exitCode = 1
        if (error instanceof SyntaxError || (error as { code?: unknown }).code === 'ENOENT')
          this.logger.error(`${file}: cannot read it: ${(error as Error).message}`)
        else if (CairnError.isCairnError(error))
          this.logger.error(`${file}: ${error.code}: ${error.message}`)
        else throw error
      }
    }
  }
}
