/** `cairn retry <id>`: requeue a failed run; an engine that drives its workflow resumes it. */
import type { Command } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'

export const retryCommand: Command = {
  name: 'retry',
  summary: 'retry a failed run (requeue it)',
  help: `Usage: cairn retry <id> [options]

Make a failed run pending again: it resumes where it failed, with completed steps replayed
(docs/requeue.md), as soon as an engine that registers its workflow picks it up.

Options:
${STORE_HELP}
  -h, --help      this help`,
  options: { ...STORE_OPTION },
  positionals: ['id'],
  async run(args, io) {
    const runId = args.positionals[0] as string
    const receipt = await withEngine(args, io, (engine) => engine.requeue(runId))
    io.out(`Run ${receipt.runId} requeued (${receipt.positionsReset} failed position(s) reset).`)
    return 0
  },
}
