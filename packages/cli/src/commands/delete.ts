/** `cairn delete <id>`: delete a finished run with its child runs and everything of theirs. */
import type { Command } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'

export const deleteCommand: Command = {
  name: 'delete',
  summary: 'delete a finished run with its child runs',
  help: `Usage: cairn delete <id> [options]

Delete a finished run (completed, failed, cancelled, continued or dead) with its child runs
and every row of theirs: steps, signals, tags, search attributes (docs/retention.md). It
cannot be undone. Refused (E_RUN_NOT_DELETABLE, naming the run that blocks) while the run, one
of its descendants or its parent is still open.

Options:
${STORE_HELP}
  -h, --help      this help`,
  options: { ...STORE_OPTION },
  positionals: ['id'],
  async run(args, io) {
    const runId = args.positionals[0] as string
    const { runs } = await withEngine(args, io, (engine) => engine.deleteRun(runId))
    io.out(
      runs === 1
        ? `Run ${runId} deleted.`
        : `Run ${runId} deleted with ${runs - 1} descendant run(s) (${runs} runs in all).`,
    )
    return 0
  },
}
