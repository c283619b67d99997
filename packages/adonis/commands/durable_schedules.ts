/**
 * `node ace durable:schedules`: lists the schedules in the store (docs/schedules.md) — when
 * each fires, its overlap policy, paused, its next window, the last run it started with its
 * status, windows fired and skipped — as a table or as JSON. With `--pause <id>`, `--resume
 * <id>` or `--trigger <id>` it acts on one schedule instead (engine.pauseSchedule,
 * resumeSchedule, triggerSchedule); a trigger's run is driven by a process running
 * durable:work.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { InvalidArgumentError, type Engine } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { SCHEDULE_TABLE_HEAD, scheduleJsonOf, scheduleRow } from '../src/ace/schedule_view.ts'

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000

export default class DurableSchedules extends DurableCommand {
  static override commandName = 'durable:schedules'
  static override description = 'List schedules, or pause, resume or trigger one'
  static override help = [
    'Schedules are read from the store, so every process’s are listed, in id order.',
    'A paused schedule starts no run; a resumed one counts its windows from now (none missed while paused is run). A trigger starts one run now, outside the windows and the overlap policy.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare pause?: string
  declare resume?: string
  declare trigger?: string
  declare limit?: number
  declare after?: string
  declare json?: boolean

  static {
    this.defineFlag('pause', { type: 'string', description: 'Pause this schedule' })
    this.defineFlag('resume', { type: 'string', description: 'Resume this schedule' })
    this.defineFlag('trigger', {
      type: 'string',
      description: 'Start a run of this schedule now',
    })
    this.defineFlag('limit', {
      type: 'number',
      description: `Most schedules listed, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
    })
    this.defineFlag('after', {
      type: 'string',
      description: 'Next page: list the schedules after this id',
    })
    this.defineFlag('json', { type: 'boolean', description: 'Print JSON instead of a table' })
  }

  override async run(): Promise<void> {
    try {
      const actions = (['pause', 'resume', 'trigger'] as const).filter(
        (name) => this[name] !== undefined,
      )
      if (actions.length > 1)
        throw new InvalidArgumentError(
          `give one of --pause, --resume, --trigger (got ${actions.map((a) => `--${a}`).join(', ')})`,
        )
      const engine = await this.engine()
      const action = actions[0]
      if (action === undefined) return await this.#list(engine)
      await this.#act(engine, action, this[action] as string)
    } catch (error) {
      this.refuse(error)
    }
  }

  async #list(engine: Engine): Promise<void> {
    const limit = this.limit ?? DEFAULT_LIMIT
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      throw new InvalidArgumentError(`--limit must be an integer from 1 to ${MAX_LIMIT}`)
    const page = await engine.listSchedules({
      ...(this.after === undefined ? {} : { after: this.after }),
      limit,
    })
    const schedules = await Promise.all(page.map((info) => scheduleJsonOf(engine, info)))
    const nextAfter = page.length === limit ? (page.at(-1)?.id ?? null) : null
    if (this.json === true) return this.logger.log(JSON.stringify({ schedules, nextAfter }))
    if (schedules.length === 0) return this.logger.info('No schedules')
    const table = this.ui.table()
    table.head(SCHEDULE_TABLE_HEAD)
    for (const schedule of schedules) table.row(scheduleRow(schedule))
    table.render()
    if (nextAfter !== null) this.logger.info(`More schedules: add --after=${nextAfter}`)
  }

  async #act(engine: Engine, action: 'pause' | 'resume' | 'trigger', id: string): Promise<void> {
    if (action === 'trigger') {
      const { runId } = await engine.triggerSchedule(id)
      if (this.json === true) return this.logger.log(JSON.stringify({ ok: true, runId }))
      return this.logger.success(
        `Schedule ${id} triggered: run ${runId} started (a process running durable:work executes it)`,
      )
    }
    const info =
      action === 'pause' ? await engine.pauseSchedule(id) : await engine.resumeSchedule(id)
    const schedule = await scheduleJsonOf(engine, info)
    if (this.json === true) return this.logger.log(JSON.stringify({ ok: true, schedule }))
    this.logger.success(
      action === 'pause'
        ? `Schedule ${id} paused: it starts no run until resumed`
        : `Schedule ${id} resumed: next window ${schedule.nextAt ?? 'none (it has ended)'}`,
    )
  }
}
