/**
 * `cairn purge --status <s>`: delete the finished runs a filter matches (engine.purgeRuns),
 * oldest first, each with its child runs. Without --yes it only counts what matches
 * (engine.facetRuns) and deletes nothing.
 */
import type { Engine, PurgeFilter } from '@cairn/core'
import type { Command, ParsedArgs } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'
import { beforeOf, integerOf, TERMINAL_STATUSES, terminalStatusesOf } from '../options.ts'
import { formatTime } from '../output/values.ts'
import { UsageError } from '../usage_error.ts'

/** Refusals printed one per line; the count says how many there were. */
const REFUSALS_SHOWN = 20

export const purgeCommand: Command = {
  name: 'purge',
  summary: 'delete the finished runs a filter matches (with --yes)',
  help: `Usage: cairn purge --status <s>[,<s>] [options]

Delete the finished runs a filter matches, oldest first, each with its child runs and every
row of theirs (docs/retention.md). It cannot be undone. Without --yes it only counts the
matching runs and deletes nothing. Runs an open run still needs (an open parent, an open
descendant) are kept and listed.

Options:
${STORE_HELP}
  --status <s>    required, repeatable or comma-separated: ${TERMINAL_STATUSES.slice(0, 3).join(', ')},
                  ${TERMINAL_STATUSES.slice(3).join(', ')}
  --workflow <w>  only runs of this workflow
  --before <t>    only runs created before t: an ISO date or time (2026-01-31,
                  2026-01-31T12:00:00Z) or a duration ago (30d, 12h, '7 days')
  --limit <n>     delete at most n matching runs (the oldest ones)
  --yes           delete them; without it, only count
  -h, --help      this help`,
  options: {
    ...STORE_OPTION,
    status: { type: 'string', multiple: true },
    workflow: { type: 'string' },
    before: { type: 'string' },
    limit: { type: 'string' },
    yes: { type: 'boolean' },
  },
  positionals: [],
  async run(args, io) {
    const filter = filterOf(args, Date.now())
    if (args.values.yes !== true) {
      const matched = await withEngine(args, io, (engine) => count(engine, filter))
      io.out(preview(matched, filter))
      return 0
    }
    const report = await withEngine(args, io, (engine) => engine.purgeRuns(filter))
    io.out(
      `Deleted ${report.roots} matching run(s), ${report.runs} run(s) in all with their descendants.`,
    )
    if (report.refused > 0) {
      io.out(`Kept ${report.refused} run(s) an open run still needs:`)
      for (const { runId, blocker } of report.refusals.slice(0, REFUSALS_SHOWN))
        io.out(
          `  ${runId}: ${blocker.relation === 'self' ? 'it' : `its ${blocker.relation} ${blocker.runId}`} is ${blocker.status}`,
        )
      if (report.refused > REFUSALS_SHOWN) io.out(`  … and ${report.refused - REFUSALS_SHOWN} more`)
    }
    return 0
  },
}

function filterOf(args: ParsedArgs, now: number): PurgeFilter {
  const { values } = args
  const status = terminalStatusesOf(values.status as string[] | undefined)
  const workflow = values.workflow as string | undefined
  if (workflow === '') throw new UsageError('--workflow must not be empty')
  const before = values.before as string | undefined
  const limit = values.limit as string | undefined
  return {
    status,
    ...(workflow === undefined ? {} : { workflow }),
    ...(before === undefined ? {} : { createdBefore: beforeOf(before, now) }),
    ...(limit === undefined
      ? {}
      : {
          limit: integerOf('limit', limit, { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 1 }),
        }),
  }
}

/** How many runs the filter matches now (one count per status, from the store's facets). */
async function count(engine: Engine, filter: PurgeFilter): Promise<number> {
  const { limit: _limit, ...query } = filter
  const { byStatus } = await engine.facetRuns(query)
  return [filter.status].flat().reduce((sum, status) => sum + (byStatus[status] ?? 0), 0)
}

function preview(matched: number, filter: PurgeFilter): string {
  const scope = [
    [filter.status].flat().join(', '),
    filter.workflow === undefined ? null : `workflow ${filter.workflow}`,
    filter.createdBefore === undefined
      ? null
      : `created before ${formatTime(new Date(filter.createdBefore))}`,
  ].filter((part) => part !== null)
  const taken =
    filter.limit !== undefined && filter.limit < matched
      ? ` --limit ${filter.limit}: the oldest ${filter.limit} would be deleted.`
      : ''
  return `${matched} run(s) match (${scope.join('; ')}).${taken}
Nothing deleted: add --yes to delete them, oldest first, each with its child runs.`
}
