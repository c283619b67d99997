/** `cairn cancel <id>`: cancel an open run, optionally running its saga compensations. */
import type { Command } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a run that has not finished',
  help: `Usage: cairn cancel <id> [options]

Cancel a run that has not finished (docs/cancellation.md); its children are cancelled too.

Options:
${STORE_HELP}
  --reason <r>    recorded as the cancellation's reason (default "run cancelled")
  --compensate    run the workflow's compensations first (needs an engine driving it)
  -h, --help      this help`,
  options: {
    ...STORE_OPTION,
    reason: { type: 'string' },
    compensate: { type: 'boolean' },
  },
  positionals: ['id'],
  async run(args, io) {
    const runId = args.positionals[0] as string
    const options = {
      reason: args.values.reason as string | undefined,
      compensate: args.values.compensate === true,
    }
    await withEngine(args, io, (engine) => engine.cancel(runId, options))
    io.out(
      options.compensate
        ? `Run ${runId} asked to stop: it ends cancelled once an engine driving it has run its compensations.`
        : `Run ${runId} cancelled.`,
    )
    return 0
  },
}
