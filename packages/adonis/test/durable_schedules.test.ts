/**
 * `node ace durable:schedules` in the fixture app, as a child process, over schedules the test
 * puts in the app's SQLite store: the table, --json with the last run's status, paging, and
 * --pause / --resume / --trigger with their error paths.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { after, before, describe, test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'
import type { ScheduleJson } from '@cairn/core'
import { clientEngine } from './client_engine.ts'

interface Listed {
  schedules: ScheduleJson[]
  nextAfter: string | null
}

const MINUTE = 60_000

void describe('durable:schedules', () => {
  let db = ''
  let client: Engine
  let firedRun = ''
  const cleanups: Array<() => unknown> = []
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-adonis-schedules-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    db = join(dir, 'durable.sqlite')
    // `every-minute` fired one window an hour ago (a fake clock), its run completed; then it was
    // paused, so the listing is the same whenever the test runs.
    const clock = new FakeClock(Date.now() - 3_600_000)
    const seeder = new Engine({ store: new SqliteStore({ path: db }), logger: silentLogger, clock })
    seeder.register('echo', 1, async (ctx, input: string) => ctx.localStep('echo', () => input))
    await seeder.startDriving()
    await seeder.schedule('every-minute', { workflow: 'echo', everyMs: MINUTE, input: 'tick' })
    await clock.advance(MINUTE)
    firedRun = (await seeder.getSchedule('every-minute'))?.lastRunId ?? ''
    assert.notEqual(firedRun, '')
    assert.equal((await seeder.waitForRun(firedRun, { timeoutMs: 30_000 })).status, 'completed')
    await seeder.pauseSchedule('every-minute')
    await seeder.close()
    client = await clientEngine({ after: (fn) => cleanups.push(fn) }, db)
    await client.schedule('nightly', {
      workflow: 'echo',
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      overlap: 'bufferOne',
      input: 'night',
    })
  })

  async function listJson(...flags: string[]): Promise<Listed> {
    const exit = await runAce(['durable:schedules', '--json', ...flags], db)
    assert.equal(exit.code, 0, exit.stderr)
    return JSON.parse(exit.stdout) as Listed
  }

  void test('prints a table: when, overlap, paused, next, last run with its status, counts', async () => {
    const exit = await runAce(['durable:schedules'], db)
    assert.equal(exit.code, 0, exit.stderr)
    for (const header of ['Schedule', 'Workflow', 'When', 'Overlap', 'Paused', 'Next'])
      assert.match(exit.stdout, new RegExp(header))
    for (const header of ['Last run', 'Fired', 'Skipped'])
      assert.match(exit.stdout, new RegExp(header))
    const row = (id: string) => exit.stdout.split('\n').find((line) => line.includes(id)) ?? ''
    const cells = (id: string) =>
      row(id)
        .split('│')
        .map((cell) => cell.trim())
        .filter((cell) => cell !== '')
    assert.deepEqual(cells('every-minute'), [
      'every-minute',
      'echo',
      'every 1 min',
      'skip',
      'yes',
      '—',
      `${firedRun} (completed)`,
      '1',
      '0',
    ])
    const nightly = cells('nightly')
    assert.deepEqual(nightly.slice(0, 5), [
      'nightly',
      'echo',
      '0 2 * * * Europe/Paris',
      'bufferOne',
      'no',
    ])
    assert.match(nightly[5] ?? '', /^\d{4}-\d\d-\d\dT0[01]:00:00\.000Z$/, 'the next window')
    assert.deepEqual(nightly.slice(6), ['—', '0', '0'])
  })

  void test('--json lists the API view of each schedule; --limit and --after page', async () => {
    const listed = await listJson()
    assert.deepEqual(
      listed.schedules.map((s) => s.id),
      ['every-minute', 'nightly'],
    )
    assert.equal(listed.nextAfter, null)
    const [minute, nightly] = listed.schedules
    assert.deepEqual(
      [minute?.everyMs, minute?.paused, minute?.nextAt, minute?.upcoming, minute?.lastRun],
      [MINUTE, true, null, [], { id: firedRun, status: 'completed' }],
    )
    assert.deepEqual(
      [nightly?.cron, nightly?.timezone, nightly?.overlap, nightly?.upcoming.length],
      ['0 2 * * *', 'Europe/Paris', 'bufferOne', 5],
    )
    const first = await listJson('--limit=1')
    assert.deepEqual(
      first.schedules.map((s) => s.id),
      ['every-minute'],
    )
    assert.equal(first.nextAfter, 'every-minute')
    const table = await runAce(['durable:schedules', '--limit=1'], db)
    assert.match(table.stdout, /More schedules: add --after=every-minute/)
    const second = await listJson('--limit=1', '--after=every-minute')
    assert.deepEqual(
      second.schedules.map((s) => s.id),
      ['nightly'],
    )
  })

  void test('--pause, --resume and --trigger act on one schedule', async () => {
    const paused = await runAce(['durable:schedules', '--pause=nightly'], db)
    assert.equal(paused.code, 0, paused.stderr)
    assert.match(paused.stdout, /Schedule nightly paused/)
    assert.equal((await client.getSchedule('nightly'))?.paused, true)

    const resumed = await runAce(['durable:schedules', '--resume=nightly', '--json'], db)
    assert.equal(resumed.code, 0, resumed.stderr)
    const { ok, schedule } = JSON.parse(resumed.stdout) as { ok: boolean; schedule: ScheduleJson }
    assert.deepEqual([ok, schedule.id, schedule.paused], [true, 'nightly', false])
    assert.equal((await client.getSchedule('nightly'))?.paused, false)

    const triggered = await runAce(['durable:schedules', '--trigger=nightly'], db)
    assert.equal(triggered.code, 0, triggered.stderr)
    const runId = /run (sch:nightly:manual:\S+) started/.exec(triggered.stdout)?.[1] ?? ''
    assert.notEqual(runId, '', triggered.stdout)
    const run = await client.getRun(runId)
    assert.deepEqual([run?.workflow, run?.status, run?.input], ['echo', 'pending', 'night'])
  })

  void test('an unknown schedule, two actions or a bad limit is an error, exit 1', async () => {
    const unknown = await runAce(['durable:schedules', '--pause=nope'], db)
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /E_SCHEDULE_NOT_FOUND: no schedule with id "nope"/)
    const both = await runAce(['durable:schedules', '--pause=nightly', '--trigger=nightly'], db)
    assert.equal(both.code, 1)
    assert.match(both.stderr, /E_INVALID_ARGUMENT: give one of --pause, --resume, --trigger/)
    const limit = await runAce(['durable:schedules', '--limit=0'], db)
    assert.equal(limit.code, 1)
    assert.match(limit.stderr, /E_INVALID_ARGUMENT: --limit must be an integer from 1 to 1000/)
    assert.equal((await client.getSchedule('nightly'))?.paused, false, 'nothing changed')
  })
})
