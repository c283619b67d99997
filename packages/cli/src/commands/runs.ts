/** `cairn runs`: one page of runs, newest (or oldest) first, as a table or JSON with the next cursor. */
import type { Command } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'
import { integerOf, statusesOf } from '../options.ts'
import { stuckQuery } from '../stuck_option.ts'
import { RUN_COLUMNS, runRow, runSummary } from '../output/run_summary.ts'
import { formatTable } from '../output/table.ts'
import { toJson } from '../output/values.ts'

export const runsCommand: Command = {
  name: 'runs',
  summary: 'list runs, newest or oldest first',
  help: `Usage: cairn runs [options]

List runs, newest first (or oldest first), one page at a time.

Options:
${STORE_HELP}
  --status <s>    only runs with this status (repeatable: --status failed --status parked)
  --workflow <w>  only runs of this workflow
  --stuck <m>     only open runs claimable for more than m minutes that no engine claimed
  --oldest        oldest first (a --cursor continues the order it came from)
  --limit <n>     runs per page, 1..1000 (default 50)
  --cursor <c>    the next page (printed after the previous one)
  --json          {"runs": [...], "nextCursor": "…" | null}
  -h, --help      this help`,
  options: {
    ...STORE_OPTION,
    status: { type: 'string', multiple: true },
    workflow: { type: 'string' },
    stuck: { type: 'string' },
    oldest: { type: 'boolean' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: [],
  async run(args, io) {
    const { values } = args
    const statuses = statusesOf(values.status as string[] | undefined)
    const query = {
      ...stuckQuery(values.stuck as string | undefined, statuses, Date.now()),
      ...(values.oldest === true ? { order: 'oldest' as const } : {}),
      workflow: values.workflow as string | undefined,
      limit: integerOf('limit', values.limit as string | undefined, {
        min: 1,
        max: 1000,
        fallback: 50,
      }),
      cursor: values.cursor as string | undefined,
    }
    const page = await withEngine(args, io, (engine) => engine.listRuns(query))
    if (values.json === true) {
      io.out(toJson({ runs: page.runs.map(runSummary), nextCursor: page.nextCursor }))
      return 0
    }
    io.out(page.runs.length === 0 ? 'No runs.' : formatTable(RUN_COLUMNS, page.runs.map(runRow)))
    if (page.nextCursor !== null) io.out(`\nNext page: --cursor ${page.nextCursor}`)
    return 0
  },
}
