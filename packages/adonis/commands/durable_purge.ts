/**
 * `node ace durable:purge --status=<s>`: deletes the finished runs a filter matches, oldest
 * first, each with its child runs (engine.purgeRuns, docs/retention.md). Without --yes it only
 * counts them (engine.facetRuns) and deletes nothing.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { Engine, PurgeFilter } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import {
  buildPurgeFilter,
  describeRefusal,
  describeScope,
  TERMINAL_STATUSES,
} from '../src/ace/purge_flags.ts'

/** Refusals printed one per line; the count says how many there were. */
const REFUSALS_SHOWN = 20

export default class DurablePurge extends DurableCommand {
  static override commandName = 'durable:purge'
  static override description =
    'Delete the finished durable workflow runs a filter matches (counts only, without --yes)'
  static override help = [
    `Statuses: ${TERMINAL_STATUSES.join(', ')} (finished runs only).`,
    'Runs go oldest first, each with its child runs and every row of theirs; it cannot be undone. Runs an open run still needs (an open parent or descendant) are kept and listed.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare status?: string[]
  declare workflow?: string
  declare before?: string
  declare limit?: number
  declare yes?: boolean

  static {
    this.defineFlag('status', {
      type: 'array',
      description:
        'Required: the finished statuses to delete (repeat the flag or separate with commas)',
    })
    this.defineFlag('workflow', { type: 'string', description: 'Only runs of this workflow' })
    this.defineFlag('before', {
      type: 'string',
      description: 'Only runs created before: an ISO date or time, or a duration ago (30d, 12h)',
    })
    this.defineFlag('limit', {
      type: 'number',
      description: 'Delete at most this many matching runs (the oldest)',
    })
    this.defineFlag('yes', {
      type: 'boolean',
      description: 'Delete them; without it, only count what matches',
    })
  }

  override async run(): Promise<void> {
    try {
      const filter = buildPurgeFilter(this, Date.now())
      const engine = await this.engine()
      if (this.yes === true) await this.#purge(engine, filter)
      else await this.#preview(engine, filter)
    } catch (error) {
      this.refuse(error)
    }
  }

  async #preview(engine: Engine, filter: PurgeFilter): Promise<void> {
    const { limit, ...query } = filter
    const { byStatus } = await engine.facetRuns(query)
    const matched = [filter.status].flat().reduce((sum, s) => sum + (byStatus[s] ?? 0), 0)
    this.logger.info(`${matched} run(s) match (${describeScope(filter)})`)
    if (limit !== undefined && limit < matched)
      this.logger.info(`--limit ${limit}: the oldest ${limit} would be deleted`)
    this.logger.info(
      'Nothing deleted: add --yes to delete them, oldest first, with their child runs',
    )
  }

  async #purge(engine: Engine, filter: PurgeFilter): Promise<void> {
    const report = await engine.purgeRuns(filter)
    this.logger.success(
      `Deleted ${report.roots} matching run(s), ${report.runs} run(s) in all with their descendants`,
    )
    if (report.refused === 0) return
    this.logger.warning(`Kept ${report.refused} run(s) an open run still needs:`)
    for (const refusal of report.refusals.slice(0, REFUSALS_SHOWN))
      this.logger.log(`  ${describeRefusal(refusal)}`)
    if (report.refused > REFUSALS_SHOWN)
      this.logger.log(`  … and ${report.refused - REFUSALS_SHOWN} more`)
  }
}
