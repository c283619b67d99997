/**
 * `cairn run <id>`: the run's summary and one page of its steps; `--history`: its recorded
 * history as a replay fixture (engine.exportHistory, docs/replay-testing.md).
 */
import { RunNotFoundError } from '@cairn/core'
import type { Command, Io, ParsedArgs } from '../command.ts'
import { UsageError } from '../usage_error.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'
import { integerOf } from '../options.ts'
import { formatRun, formatSteps } from '../output/run_detail.ts'
import { toJson } from '../output/values.ts'

export const runCommand: Command = {
  name: 'run',
  summary: 'show one run and its steps',
  help: `Usage: cairn run <id> [options]

Show a run (status, times, error, input, output) and its steps, a page at a time.

Options:
${STORE_HELP}
  --from-seq <n>  first step position shown (default 0)
  --limit <n>     steps shown, 1..1000 (default 100)
  --json          {"run": {...}, "steps": [...], "nextFromSeq": n | null}
  --history       print the run's recorded history (every step, payloads as stored) as
                  JSON, a fixture for replayHistory: cairn run <id> --history > order-42.json
  -h, --help      this help`,
  options: {
    ...STORE_OPTION,
    'from-seq': { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    history: { type: 'boolean' },
  },
  positionals: ['id'],
  async run(args, io) {
    const runId = args.positionals[0] as string
    if (args.values.history === true) return printHistory(args, io, runId)
    const page = {
      fromSeq: integerOf('from-seq', args.values['from-seq'] as string | undefined, {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        fallback: 0,
      }),
      limit: integerOf('limit', args.values.limit as string | undefined, {
        min: 1,
        max: 1000,
        fallback: 100,
      }),
    }
    const { run, steps } = await withEngine(args, io, async (engine) => {
      const found = await engine.getRun(runId)
      if (found === null)
        throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
      // One page read from the store (an index range), however many steps the run has.
      return { run: found, steps: await engine.getStepsPage(runId, page) }
    })
    if (args.values.json === true) {
      io.out(toJson({ run, steps: steps.steps, nextFromSeq: steps.nextFromSeq }))
      return 0
    }
    io.out(`${formatRun(run)}\n\n${formatSteps(steps.steps)}`)
    if (steps.nextFromSeq !== null)
      io.out(`\nMore steps: cairn run ${runId} --from-seq ${steps.nextFromSeq}`)
    return 0
  },
}

/** The whole recorded history, as plain JSON (payloads stay as the codec wrote them). */
async function printHistory(args: ParsedArgs, io: Io, runId: string): Promise<number> {
  for (const option of ['from-seq', 'limit', 'json'])
    if (args.values[option] !== undefined)
      throw new UsageError(`--history prints the whole history as JSON: drop --${option}`)
  const history = await withEngine(args, io, (engine) => engine.exportHistory(runId))
  io.out(JSON.stringify(history, null, 2))
  return 0
}
