/**
 * `node ace durable:runs` in the fixture app, as a child process, over runs the test seeds in
 * the app's SQLite store: the table, the filters, --stale, paging, --json, the error paths, and
 * that the command (like every one-off command) never picks a run up.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { after, before, describe, test } from 'node:test'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'

interface Listed {
  runs: Array<{ id: string; status: string; workflow: string; turns: number; error: unknown }>
  nextCursor: string | null
  notes: string[]
}

void describe('durable:runs', () => {
  let db = ''
  let client: Engine
  const cleanups: Array<() => unknown> = []
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-adonis-runs-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    db = join(dir, 'durable.sqlite')
    // Finished runs, executed here by an engine with real bodies, then closed.
    const seeder = new Engine({ store: new SqliteStore({ path: db }), logger: silentLogger })
    seeder.register('echo', 1, async (ctx, input: string) => ctx.localStep('echo', () => input))
    seeder.register('gated', 1, async () => {
      throw new FatalError('no gate given')
    })
    await seeder.startDriving()
    for (const runId of ['done-1', 'done-2']) await seeder.start('echo', runId, { runId })
    await seeder.start('gated', {}, { runId: 'failed-1' })
    for (const runId of ['done-1', 'done-2', 'failed-1'])
      await seeder.waitForRun(runId, { timeoutMs: 30_000 })
    await seeder.close()
    // A run created two hours ago that nothing picked up (stale), and a fresh one (not stale).
    const past = new Engine({
      store: new SqliteStore({ path: db }),
      logger: silentLogger,
      clock: new FakeClock(Date.now() - 2 * 3_600_000),
    })
    past.register('gated', 1, async () => 'never run')
    await past.start('gated', { gate: 'none' }, { runId: 'old-gated' })
    await past.close()
    client = await clientEngine({ after: (fn) => cleanups.push(fn) }, db)
    await client.start('echo', 'fresh', { runId: 'fresh-echo' })
  })

  async function listJson(...flags: string[]): Promise<Listed> {
    const exit = await runAce(['durable:runs', '--json', ...flags], db)
    assert.equal(exit.code, 0, exit.stderr)
    return JSON.parse(exit.stdout) as Listed
  }

  const ids = (listed: Listed) => listed.runs.map((run) => run.id)

  void test('prints a table of runs, newest first, with the detail an operator looks for', async () => {
    const exit = await runAce(['durable:runs'], db)
    assert.equal(exit.code, 0, exit.stderr)
    for (const header of ['Run', 'Workflow', 'Status', 'Created', 'Updated', 'Turns', 'Detail'])
      assert.match(exit.stdout, new RegExp(header))
    const rows = exit.stdout.split('\n').filter((line) => /done-|failed-|old-|fresh-/.test(line))
    assert.deepEqual(
      rows.map((row) => /(done-\d|failed-1|old-gated|fresh-echo)/.exec(row)?.[1]),
      ['fresh-echo', 'failed-1', 'done-2', 'done-1', 'old-gated'],
    )
    assert.match(rows[0]!, /echo@1.*pending.*claimable/)
    assert.match(rows[1]!, /gated@1.*failed.*E_FATAL: no gate given/)
    assert.match(rows[2]!, /echo@1.*completed/)
  })

  void test('--workflow and --status filter (a status list with commas); --json for scripts', async () => {
    const completed = await listJson('--workflow=echo', '--status=completed')
    assert.deepEqual(ids(completed), ['done-2', 'done-1'])
    assert.equal(completed.runs[0]?.turns, 1)
    assert.equal(completed.runs[0]?.error, null)
    assert.deepEqual(ids(await listJson('--status=pending,running')), ['fresh-echo', 'old-gated'])
  })

  void test('--stale lists open runs claimable for longer than --stale-after and nothing else', async () => {
    // The default (60 s): the run created two hours ago, not the fresh one.
    assert.deepEqual(ids(await listJson('--stale')), ['old-gated'])
    // Claimable for two hours is not stale under a three-hour threshold.
    assert.deepEqual(ids(await listJson('--stale', '--stale-after=10800000')), [])
  })

  void test('--stale pages with --cursor like any list', async () => {
    // Threshold 0: both pending runs are stale; one per page.
    const first = await listJson('--stale', '--stale-after=0', '--limit=1')
    assert.deepEqual(ids(first), ['fresh-echo'])
    assert.ok(first.nextCursor !== null)
    const second = await listJson(
      '--stale',
      '--stale-after=0',
      '--limit=1',
      `--cursor=${first.nextCursor}`,
    )
    assert.deepEqual(ids(second), ['old-gated'])
    assert.equal(second.nextCursor, null)
  })

  void test('--limit is clamped to 1..1000 and says so; --cursor pages on', async () => {
    const first = await listJson('--limit=0')
    assert.deepEqual(ids(first), ['fresh-echo'])
    assert.deepEqual(first.notes, ['--limit 0 is outside 1..1000: showing at most 1'])
    assert.ok(first.nextCursor !== null)
    const second = await listJson('--limit=2', `--cursor=${first.nextCursor}`)
    assert.deepEqual(ids(second), ['failed-1', 'done-2'])
    assert.deepEqual(second.notes, [])
  })

  void test('an unknown status, or a closed status with --stale: clear errors, exit 1', async () => {
    const status = await runAce(['durable:runs', '--status=pending,bogus'], db)
    assert.equal(status.code, 1)
    assert.match(
      status.stderr,
      /E_INVALID_ARGUMENT: --status "bogus" is not a run status \(one of: queued, pending, running, waiting, blocked, parked, completed, failed, cancelled, continued, dead\)/,
    )
    const stale = await runAce(['durable:runs', '--stale', '--status=completed'], db)
    assert.equal(stale.code, 1)
    assert.match(stale.stderr, /E_INVALID_ARGUMENT: --stale looks at open runs only/)
  })

  void test('a one-off command never picks runs up, even with drive: true in the config', async () => {
    // An app command of the fixture's own: the engine of a console process does not drive.
    const probe = await runAce(['probe:driving'], db)
    assert.equal(probe.code, 0, probe.stderr)
    assert.deepEqual(JSON.parse(probe.stdout), { driving: false })
    // Claimable all along, and the app booted in this and every test above: never claimed.
    for (const runId of ['fresh-echo', 'old-gated']) {
      const run = await client.getRun(runId)
      assert.equal(run?.status, 'pending')
      assert.equal(run?.turns, 0)
    }
  })
})
