/**
 * `cairn schedules` as a user runs it — a child process over a real SQLite file, a Postgres
 * schema and a MariaDB database — lists the schedules an application engine made (with the
 * last run's status), pages them, and pauses and resumes one.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Engine, ScheduleJson } from '@cairn/core'
import { cairn, cliStores, drivingEngine, freshDatabase, type Database } from './cli_fixture.ts'

interface Listed {
  schedules: ScheduleJson[]
  nextAfter: string | null
}

/** Polls until schedule `id` fired a window, pauses it at once, and waits for that run to end. */
async function firedOnceThenPaused(engine: Engine, id: string): Promise<string> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const runId = (await engine.getSchedule(id))?.lastRunId ?? null
    if (runId !== null) {
      await engine.pauseSchedule(id)
      await engine.waitForRun(runId, { timeoutMs: 20_000 })
      return runId
    }
    if (Date.now() > deadline) assert.fail(`schedule ${id} never fired`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

for (const kind of await cliStores()) {
  void describe(`cairn schedules [${kind}]`, () => {
    let db: Database
    let engine: Engine
    let firedRun = ''
    before(async () => {
      db = await freshDatabase(kind)
      engine = await drivingEngine(await db.open())
      // Fires one window a second later, then is paused (a second before its next): the
      // listing holds still.
      await engine.schedule('ping', { workflow: 'greet', everyMs: 1000, input: 'ping' })
      firedRun = await firedOnceThenPaused(engine, 'ping')
      await engine.schedule('nightly', {
        workflow: 'greet',
        cron: '0 2 * * *',
        timezone: 'Europe/Paris',
        overlap: 'bufferOne',
      })
    })
    after(async () => {
      await engine.close()
      await db.drop()
    })

    void test('a table of schedules in id order, with the last run and its status', async () => {
      const { code, stdout, stderr } = await cairn(['schedules', '--store', db.url])
      assert.equal(code, 0, stderr)
      const lines = stdout.trim().split('\n')
      assert.match(
        lines[0] as string,
        /^ID\s+WORKFLOW\s+WHEN\s+OVERLAP\s+PAUSED\s+NEXT\s+LAST RUN\s+FIRED\s+SKIPPED$/,
      )
      assert.deepEqual(
        lines.slice(1).map((l) => l.split(/\s+/)[0]),
        ['nightly', 'ping'],
      )
      assert.match(
        stdout,
        /nightly\s+greet\s+0 2 \* \* \* Europe\/Paris\s+bufferOne\s+no\s+\d{4}-\d\d-\d\d 0[01]:00:00Z\s+-\s+0\s+0/,
      )
      const ping = new RegExp(
        `ping\\s+greet\\s+every 1s\\s+skip\\s+yes\\s+-\\s+${firedRun.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(completed\\)\\s+1\\s+0`,
      )
      assert.match(stdout, ping)
    })

    void test('--json is the dashboard API view; --limit and --after page', async () => {
      const all = JSON.parse((await cairn(['schedules', '--store', db.url, '--json'])).stdout)
      const listed = all as Listed
      assert.equal(listed.nextAfter, null)
      const ping = listed.schedules.find((s) => s.id === 'ping')
      assert.deepEqual(
        [ping?.everyMs, ping?.paused, ping?.nextAt, ping?.upcoming, ping?.lastRun],
        [1000, true, null, [], { id: firedRun, status: 'completed' }],
      )
      const nightly = listed.schedules.find((s) => s.id === 'nightly')
      assert.deepEqual(
        [nightly?.cron, nightly?.timezone, nightly?.overlap, nightly?.lastRun],
        ['0 2 * * *', 'Europe/Paris', 'bufferOne', null],
      )
      assert.match(nightly?.nextAt ?? '', /^\d{4}-\d\d-\d\dT0[01]:00:00\.000Z$/)
      const first = JSON.parse(
        (await cairn(['schedules', '--store', db.url, '--limit', '1', '--json'])).stdout,
      ) as Listed
      assert.deepEqual(
        first.schedules.map((s) => s.id),
        ['nightly'],
      )
      assert.equal(first.nextAfter, 'nightly')
      const table = await cairn(['schedules', '--store', db.url, '--limit', '1'])
      assert.match(table.stdout, /Next page: --after nightly$/m)
      const second = JSON.parse(
        (
          await cairn([
            'schedules',
            '--store',
            db.url,
            '--limit',
            '1',
            '--after',
            'nightly',
            '--json',
          ])
        ).stdout,
      ) as Listed
      assert.deepEqual(
        second.schedules.map((s) => s.id),
        ['ping'],
      )
    })

    void test('--pause and --resume act on one schedule; an unknown one is exit 1', async () => {
      const paused = await cairn(['schedules', '--store', db.url, '--pause', 'nightly'])
      assert.equal(paused.code, 0, paused.stderr)
      assert.equal(paused.stdout.trim(), 'Schedule nightly paused.')
      assert.equal((await engine.getSchedule('nightly'))?.paused, true)
      const resumed = await cairn(['schedules', '--store', db.url, '--resume', 'nightly', '--json'])
      assert.equal(resumed.code, 0, resumed.stderr)
      const answer = JSON.parse(resumed.stdout)
      assert.deepEqual(
        [answer.ok, answer.schedule.id, answer.schedule.paused],
        [true, 'nightly', false],
      )
      assert.equal(answer.schedule.upcoming.length, 5)
      assert.equal((await engine.getSchedule('nightly'))?.paused, false)

      const unknown = await cairn(['schedules', '--store', db.url, '--pause', 'nope'])
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /^E_SCHEDULE_NOT_FOUND: no schedule with id "nope"/)
      const both = await cairn(['schedules', '--store', db.url, '--pause', 'a', '--resume', 'b'])
      assert.equal(both.code, 2)
      assert.match(both.stderr, /^E_USAGE: cairn schedules: give --pause or --resume, not both/)
    })
  })
}
