/**
 * `cairn schedules`: one page of schedules in id order, as a table or JSON with the next page's
 * `--after`; `--pause <id>` / `--resume <id>` act on one instead. No trigger: a trigger starts
 * the run where it is called (engine.triggerSchedule), and this engine registers no workflow.
 */
import type { Engine } from '@cairn/core'
import type { Command, ParsedArgs } from '../command.ts'
import { STORE_HELP, STORE_OPTION, withEngine } from '../open_engine.ts'
import { integerOf } from '../options.ts'
import {
  SCHEDULE_COLUMNS,
  scheduleJson,
  scheduleRow,
  scheduleSummary,
} from '../output/schedule_summary.ts'
import { formatTable } from '../output/table.ts'
import { formatTime, toJson } from '../output/values.ts'
import { UsageError } from '../usage_error.ts'

export const schedulesCommand: Command = {
  name: 'schedules',
  summary: 'list schedules; pause or resume one',
  help: `Usage: cairn schedules [options]

List schedules in id order, one page at a time: when each fires, its overlap policy, paused,
its next window (UTC), the last run it started with its status, windows fired and skipped.

Options:
${STORE_HELP}
  --pause <id>    pause this schedule: it starts no run until resumed
  --resume <id>   resume it: its windows count from now (none missed while paused runs)
  --limit <n>     schedules per page, 1..1000 (default 100)
  --after <id>    the next page (printed after the previous one)
  --json          {"schedules": [...], "nextAfter": "…" | null}; with --pause or --resume
                  {"ok": true, "schedule": {...}}
  -h, --help      this help

A trigger (a run now) starts the run where it is asked, which needs the schedule's workflow
registered: use your application's dashboard or engine.triggerSchedule.`,
  options: {
    ...STORE_OPTION,
    pause: { type: 'string' },
    resume: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: [],
  async run(args, io) {
    const action = actionOf(args)
    const limit = integerOf('limit', args.values.limit as string | undefined, {
      min: 1,
      max: 1000,
      fallback: 100,
    })
    const json = args.values.json === true
    if (action !== null) {
      const summary = await withEngine(args, io, async (engine) => {
        const info = action.paused
          ? await engine.pauseSchedule(action.id)
          : await engine.resumeSchedule(action.id)
        return scheduleSummary(engine, info)
      })
      if (json) io.out(toJson({ ok: true, schedule: scheduleJson(summary) }))
      else if (action.paused) io.out(`Schedule ${action.id} paused.`)
      else io.out(`Schedule ${action.id} resumed; next window ${formatTime(summary.info.nextAt)}.`)
      return 0
    }
    const after = args.values.after as string | undefined
    const page = await withEngine(args, io, (engine) => listPage(engine, limit, after))
    const nextAfter = page.length === limit ? (page.at(-1)?.info.id ?? null) : null
    if (json) {
      io.out(toJson({ schedules: page.map(scheduleJson), nextAfter }))
      return 0
    }
    io.out(
      page.length === 0 ? 'No schedules.' : formatTable(SCHEDULE_COLUMNS, page.map(scheduleRow)),
    )
    if (nextAfter !== null) io.out(`\nNext page: --after ${nextAfter}`)
    return 0
  },
}

async function listPage(engine: Engine, limit: number, after: string | undefined) {
  const infos = await engine.listSchedules({ ...(after === undefined ? {} : { after }), limit })
  return Promise.all(infos.map((info) => scheduleSummary(engine, info)))
}

function actionOf(args: ParsedArgs): { id: string; paused: boolean } | null {
  const pause = args.values.pause as string | undefined
  const resume = args.values.resume as string | undefined
  if (pause !== undefined && resume !== undefined)
    throw new UsageError('cairn schedules: give --pause or --resume, not both')
  if (pause !== undefined) return { id: pause, paused: true }
  if (resume !== undefined) return { id: resume, paused: false }
  return null
}
