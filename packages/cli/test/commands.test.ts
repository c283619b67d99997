/**
 * The `cairn` bin as a user runs it — a child process over a real SQLite file, a Postgres
 * schema and a MariaDB database — lists, shows, retries and cancels runs an application engine made.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import {
  cairn,
  cardState,
  cliStores,
  compensated,
  drivingEngine,
  freshDatabase,
  type Database,
} from './cli_fixture.ts'

interface Seeded {
  greet: string
  charge: string
  approval: string
}

async function seed(engine: Engine): Promise<Seeded> {
  cardState.declined = true
  const greet = (await engine.start('greet', 'ada', { runId: 'greet-1' })).runId
  await engine.waitForRun(greet, { timeoutMs: 20_000 })
  const charge = (await engine.start('charge', 42, { runId: 'charge-1' })).runId
  await engine.waitForRun(charge, { timeoutMs: 20_000 })
  const approval = (await engine.start('approval', null, { runId: 'approval-1' })).runId
  await untilWaiting(engine, approval)
  return { greet, charge, approval }
}

/** Polls until the run waits; fails (rather than hanging CI) after 20 s. */
async function untilWaiting(engine: Engine, runId: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await engine.getRun(runId))?.status !== 'waiting') {
    if (Date.now() > deadline) assert.fail(`run ${runId} never reached waiting`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

for (const kind of await cliStores()) {
  void describe(`cairn commands [${kind}]`, () => {
    let db: Database
    let engine: Engine
    let runs: Seeded
    before(async () => {
      db = await freshDatabase(kind)
      engine = await drivingEngine(await db.open())
      runs = await seed(engine)
    })
    after(async () => {
      await engine.close()
      await db.drop()
    })

    void test('runs: a table of every run, newest first, with workflow@version and the error', async () => {
      const { code, stdout } = await cairn(['runs', '--store', db.url])
      assert.equal(code, 0)
      const lines = stdout.trim().split('\n')
      assert.match(lines[0] as string, /^ID\s+WORKFLOW\s+STATUS\s+CREATED\s+UPDATED\s+WAITING ON/)
      assert.deepEqual(
        lines.slice(1).map((l) => l.split(/\s+/)[0]),
        [runs.approval, runs.charge, runs.greet],
      )
      assert.match(stdout, /charge-1\s+charge@2\s+failed\s.*E_FATAL: card declined/)
      assert.match(stdout, /greet-1\s+greet@1\s+completed/)
    })

    void test(
      'a SQLite file given as a bare path, sqlite:///abs and file:///abs is the same store',
      { skip: kind !== 'sqlite' && 'SQLite only' },
      async () => {
        const path = db.url.slice('sqlite:'.length)
        for (const url of [path, `sqlite://${path}`, pathToFileURL(path).href]) {
          const { code, stdout, stderr } = await cairn(['runs', '--store', url, '--json'])
          assert.equal(code, 0, `${url}: ${stderr}`)
          assert.ok(
            JSON.parse(stdout).runs.some((r: { id: string }) => r.id === runs.greet),
            `${url} lists the seeded runs`,
          )
        }
      },
    )

    void test('runs --json: filters by status and workflow, pages with the printed cursor', async () => {
      const failed = JSON.parse(
        (await cairn(['runs', '--store', db.url, '--status', 'failed', '--json'])).stdout,
      )
      assert.deepEqual(
        failed.runs.map((r: { id: string }) => r.id),
        [runs.charge],
      )
      assert.equal(failed.runs[0].error.message, 'card declined')
      const byWorkflow = JSON.parse(
        (await cairn(['runs', '--store', db.url, '--workflow', 'greet', '--json'])).stdout,
      )
      assert.deepEqual(
        byWorkflow.runs.map((r: { id: string }) => r.id),
        [runs.greet],
      )
      const first = JSON.parse(
        (await cairn(['runs', '--store', db.url, '--limit', '2', '--json'])).stdout,
      )
      assert.deepEqual(
        first.runs.map((r: { id: string }) => r.id),
        [runs.approval, runs.charge],
      )
      assert.equal(typeof first.nextCursor, 'string')
      const second = JSON.parse(
        (
          await cairn([
            'runs',
            '--store',
            db.url,
            '--limit',
            '2',
            '--cursor',
            first.nextCursor,
            '--json',
          ])
        ).stdout,
      )
      assert.deepEqual(
        second.runs.map((r: { id: string }) => r.id),
        [runs.greet],
      )
      const oldest = JSON.parse(
        (await cairn(['runs', '--store', db.url, '--oldest', '--limit', '2', '--json'])).stdout,
      )
      assert.deepEqual(
        oldest.runs.map((r: { id: string }) => r.id),
        [runs.greet, runs.charge],
      )
      const mixed = await cairn(['runs', '--store', db.url, '--cursor', oldest.nextCursor])
      assert.equal(mixed.code, 1, 'an oldest-first cursor does not page a newest-first list')
      assert.match(mixed.stderr, /^E_INVALID_CURSOR/)
      assert.equal(second.nextCursor, null)
    })

    void test('run <id>: the summary and a page of steps, with where the next page starts', async () => {
      const { code, stdout } = await cairn(['run', runs.charge, '--store', db.url])
      assert.equal(code, 0)
      assert.match(stdout, /^Run\s+charge-1$/m)
      assert.match(stdout, /^Workflow\s+charge@2$/m)
      assert.match(stdout, /^Error\s+E_FATAL: card declined$/m)
      assert.match(stdout, /^0\s+reserve\s+\S+\s+completed/m)
      assert.match(stdout, /^1\s+charge\s+\S+\s+failed\s.*card declined/m)
      const paged = await cairn(['run', runs.charge, '--store', db.url, '--limit', '1'])
      assert.doesNotMatch(paged.stdout, /^1\s+charge/m)
      assert.match(paged.stdout, /More steps: cairn run charge-1 --from-seq 1/)
      const json = JSON.parse(
        (await cairn(['run', runs.charge, '--store', db.url, '--from-seq', '1', '--json'])).stdout,
      )
      assert.equal(json.run.status, 'failed')
      assert.equal(json.run.input, 42)
      assert.deepEqual(
        json.steps.map((s: { name: string }) => s.name),
        ['charge'],
      )
      assert.equal(json.nextFromSeq, null)
    })

    void test('retry <id> requeues a failed run; the application engine then completes it', async () => {
      cardState.declined = false
      const { code, stdout } = await cairn(['retry', runs.charge, '--store', db.url])
      assert.equal(code, 0, stdout)
      assert.match(stdout, /Run charge-1 requeued \(1 failed position\(s\) reset\)/)
      const outcome = await engine.waitForRun(runs.charge, { timeoutMs: 30_000 })
      assert.deepEqual(outcome, {
        runId: runs.charge,
        status: 'completed',
        output: { charged: 42 },
      })
      const again = await cairn(['retry', runs.greet, '--store', db.url])
      assert.equal(again.code, 1)
      assert.match(again.stderr, /^E_RUN_NOT_REQUEUEABLE: /)
    })

    void test('cancel <id> --reason cancels a waiting run; cancelling it again is an error', async () => {
      const { code, stdout } = await cairn([
        'cancel',
        runs.approval,
        '--store',
        db.url,
        '--reason',
        'no longer needed',
      ])
      assert.equal(code, 0)
      assert.match(stdout, /Run approval-1 cancelled\./)
      const run = await engine.getRun(runs.approval)
      assert.equal(run?.status, 'cancelled')
      assert.match(run?.error?.message ?? '', /no longer needed/)
      const again = await cairn(['cancel', runs.approval, '--store', db.url])
      assert.equal(again.code, 1)
      assert.match(again.stderr, /^E_RUN_TERMINAL: run "approval-1" already finished \(cancelled\)/)
    })

    void test('cancel <id> --compensate: the driving engine runs the compensations, then the run ends cancelled', async () => {
      compensated.length = 0
      const { runId } = await engine.start('booking', '12A', { runId: 'booking-1' })
      await untilWaiting(engine, runId)
      const { code, stdout } = await cairn([
        'cancel',
        runId,
        '--store',
        db.url,
        '--compensate',
        '--reason',
        'seat no longer wanted',
      ])
      assert.equal(code, 0)
      assert.match(stdout, /Run booking-1 asked to stop: it ends cancelled once an engine/)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 30_000 })
      assert.equal(outcome.status, 'cancelled')
      assert.deepEqual(compensated, ['released hold-12A'])
      const steps = await engine.getSteps(runId)
      assert.deepEqual(
        steps.filter((s) => s.name === 'compensate:hold').map((s) => s.status),
        ['completed'],
      )
    })

    void test('an unknown run id is E_RUN_NOT_FOUND, exit 1', async () => {
      for (const args of [
        ['run', 'nope'],
        ['retry', 'nope'],
        ['cancel', 'nope'],
      ]) {
        const { code, stdout, stderr } = await cairn([...args, '--store', db.url])
        assert.equal(code, 1, args.join(' '))
        assert.equal(stdout, '')
        assert.match(stderr, /^E_RUN_NOT_FOUND: no run with id "nope"/)
      }
    })

    void test('runs --stuck <m>: open runs claimable for more than m minutes that no engine claimed', async () => {
      // A run of a workflow the driving engine does not have: pending, claimable, never claimed.
      const other = new Engine({
        store: await db.open(),
        logger: silentLogger,
        instanceId: 'other',
      })
      other.register('later', 1, async () => 'never runs here')
      await other.start('later', null, { runId: 'later-1' })
      const ids = async (...args: string[]) => {
        const { code, stdout, stderr } = await cairn(['runs', '--store', db.url, ...args, '--json'])
        assert.equal(code, 0, stderr)
        return JSON.parse(stdout).runs.map((r: { id: string }) => r.id)
      }
      try {
        // Waiting runs with no timer (approval-1) and finished runs are never stuck.
        assert.deepEqual(await ids('--stuck', '0'), ['later-1'])
        assert.deepEqual(await ids('--stuck', '5'), [], 'claimable for seconds, not minutes')
        assert.deepEqual(await ids('--stuck', '0', '--status', 'pending'), ['later-1'])
        assert.deepEqual(await ids('--stuck', '0', '--workflow', 'greet'), [])
        const closed = await cairn([
          'runs',
          '--store',
          db.url,
          '--stuck',
          '0',
          '--status',
          'failed',
        ])
        assert.equal(closed.code, 2)
        assert.match(closed.stderr, /--stuck lists open runs: --status failed is not one of/)
        const bad = await cairn(['runs', '--store', db.url, '--stuck', 'soon'])
        assert.equal(bad.code, 2)
      } finally {
        await other.cancel('later-1').catch(() => {})
        await other.close()
      }
    })
  })
}
