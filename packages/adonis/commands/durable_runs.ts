/**
 * `node ace durable:runs`: lists runs, newest first, as a table or as JSON. Reads only: it never
 * drives runs.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { RunInfo } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { buildRunQuery, RUN_STATUSES } from '../src/ace/run_query.ts'
import { runJson, TABLE_HEAD, tableRow } from '../src/ace/run_view.ts'
import { DEFAULT_STALE_AFTER_MS, findStaleRuns } from '../src/ace/stale_runs.ts'

export default class DurableRuns extends DurableCommand {
  static override commandName = 'durable:runs'
  static override description = 'List durable workflow runs, newest first'
  static override help = [
    `Statuses: ${RUN_STATUSES.join(', ')}.`,
    'A run is stale when it is pending, running, waiting or blocked and became claimable (created or handed back, timer due, lease expired) more than --stale-after ms ago without any engine claiming it: no process drives runs, or all of them are at their concurrency limit.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare status?: string[]
  declare workflow?: string
  declare stale?: boolean
  declare staleAfter?: number
  declare limit?: number
  declare cursor?: string
  declare json?: boolean

  static {
    this.defineFlag('status', {
      type: 'array',
      description: 'Only runs in these statuses (repeat the flag or separate with commas)',
    })
    this.defineFlag('workflow', { type: 'string', description: 'Only runs of this workflow' })
    this.defineFlag('stale', {
      type: 'boolean',
      description: 'Only open runs no engine has claimed for --stale-after ms (see help)',
    })
    this.defineFlag('staleAfter', {
      type: 'number',
      description: `With --stale: how long claimable counts as stale, in ms (default ${DEFAULT_STALE_AFTER_MS})`,
    })
    this.defineFlag('limit', {
      type: 'number',
      description: 'Most runs shown, 1–1000 (default 50)',
    })
    this.defineFlag('cursor', {
      type: 'string',
      description: 'Next page: the cursor a list printed',
    })
    this.defineFlag('json', { type: 'boolean', description: 'Print JSON instead of a table' })
  }

  override async run(): Promise<void> {
    try {
      await this.#list()
    } catch (error) {
      this.refuse(error)
    }
  }

  async #list(): Promise<void> {
    const { query, notes } = buildRunQuery(this)
    const engine = await this.engine()
    const now = engine.options.clock.now()
    let runs: RunInfo[]
    let nextCursor: string | null = null
    if (this.stale === true) {
      const page = await findStaleRuns(engine, {
        ...query,
        status: query.status === undefined ? undefined : [query.status].flat(),
        staleAfterMs: this.staleAfter ?? DEFAULT_STALE_AFTER_MS,
        now,
      })
      runs = page.runs
      nextCursor = page.nextCursor
    } else {
      const page = await engine.listRuns(query)
      runs = page.runs
      nextCursor = page.nextCursor
    }
    if (this.json === true) {
      this.logger.log(JSON.stringify({ runs: runs.map(runJson), nextCursor, notes }))
      return
    }
    for (const note of notes) this.logger.warning(note)
    if (runs.length === 0) return this.logger.info('No runs match')
    const table = this.ui.table()
    table.head(TABLE_HEAD)
    for (const run of runs) table.row(tableRow(run, now))
    table.render()
    if (nextCursor !== null) this.logger.info(`More runs: add --cursor=${nextCursor}`)
  }
}
