/**
 * `node ace durable:delete <runId>` and `node ace durable:purge` in the fixture app, as child
 * processes, over runs the test seeds in the app's SQLite store (docs/retention.md): a finished
 * run goes with its children; an open run, or a child its open parent still needs, is refused
 * naming the blocker; purge counts without --yes and deletes with it, oldest first, within
 * --workflow, --before and --limit; bad flags are clear errors, exit 1.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'

const DAY = 86_400_000

/** Runs with real bodies, executed by an engine on `clock`, then closed. */
async function seed(db: string, clock: FakeClock, runs: Array<[string, string, unknown]>) {
  const engine = new Engine({ store: new SqliteStore({ path: db }), logger: silentLogger, clock })
  engine.register('echo', 1, async (ctx, input: string) => ctx.localStep('echo', () => input))
  engine.register('gated', 1, async () => {
    throw new FatalError('no gate given')
  })
  engine.register('sum', 1, async (ctx, n: number) => {
    const a = await ctx.child<string>('echo', `a${n}`)
    const b = await ctx.child<string>('echo', `b${n}`)
    return `${a} ${b}`
  })
  engine.register('hold', 1, async (ctx) => {
    await ctx.child('echo', 'child')
    return ctx.waitForSignal('go')
  })
  await engine.startDriving()
  for (const [workflow, runId, input] of runs) await engine.start(workflow, input, { runId })
  for (const [workflow, runId] of runs)
    if (workflow !== 'hold') await engine.waitForRun(runId, { timeoutMs: 30_000 })
  await engine.whenQuiet()
  await engine.close()
}

void describe('durable:delete and durable:purge', () => {
  let db = ''
  let client: Engine
  const cleanups: Array<() => unknown> = []
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-adonis-delete-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    db = join(dir, 'durable.sqlite')
    // Ten days ago: three echoes and a failed run; now: two echoes, a sum (two children) and a
    // hold waiting for its signal after its child finished.
    await seed(db, new FakeClock(Date.now() - 10 * DAY), [
      ['echo', 'old-1', 'x'],
      ['echo', 'old-2', 'x'],
      ['echo', 'old-3', 'x'],
      ['gated', 'old-failed', {}],
    ])
    await seed(db, new FakeClock(Date.now()), [
      ['echo', 'new-1', 'x'],
      ['echo', 'new-2', 'x'],
      ['sum', 'sum-1', 1],
      ['hold', 'held', null],
    ])
    client = await clientEngine({ after: (fn) => cleanups.push(fn) }, db)
  })

  const present = async (ids: readonly string[]) => {
    const found: string[] = []
    for (const id of ids) if ((await client.getRun(id)) !== null) found.push(id)
    return found
  }

  void test('durable:delete takes a finished run with its children; again, E_RUN_NOT_FOUND', async () => {
    const children = (await client.listRuns({ parentRunId: 'sum-1' })).runs.map((r) => r.id)
    assert.equal(children.length, 2)
    const exit = await runAce(['durable:delete', 'sum-1'], db)
    assert.equal(exit.code, 0, exit.stderr)
    assert.match(exit.stdout, /Run sum-1 deleted with 2 descendant run\(s\) \(3 runs in all\)/)
    assert.deepEqual(await present(['sum-1', ...children]), [])
    const again = await runAce(['durable:delete', 'sum-1'], db)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /E_RUN_NOT_FOUND: no run with id "sum-1"/)
  })

  void test('durable:delete refuses an open run, and a child its open parent needs', async () => {
    const child = (await client.listRuns({ parentRunId: 'held' })).runs[0]?.id as string
    assert.equal((await client.getRun(child))?.status, 'completed')
    const open = await runAce(['durable:delete', 'held'], db)
    assert.equal(open.code, 1)
    assert.match(open.stderr, /E_RUN_NOT_DELETABLE: run "held" cannot be deleted: it is waiting/)
    const needed = await runAce(['durable:delete', child], db)
    assert.equal(needed.code, 1)
    assert.match(needed.stderr, /E_RUN_NOT_DELETABLE: .*its parent "held" is waiting/)
    assert.deepEqual(await present(['held', child]), ['held', child])
  })

  void test('durable:purge counts without --yes; with it, deletes the oldest matching runs', async () => {
    const scope = ['--status=completed', '--workflow=echo']
    const preview = await runAce(['durable:purge', ...scope, '--before=7d', '--limit=2'], db)
    assert.equal(preview.code, 0, preview.stderr)
    assert.match(preview.stdout, /3 run\(s\) match \(completed; workflow echo; created before /)
    assert.match(preview.stdout, /--limit 2: the oldest 2 would be deleted/)
    assert.match(preview.stdout, /Nothing deleted: add --yes/)
    assert.equal((await present(['old-1', 'old-2', 'old-3'])).length, 3, 'counted only')

    const two = await runAce(['durable:purge', ...scope, '--before=7d', '--limit=2', '--yes'], db)
    assert.equal(two.code, 0, two.stderr)
    assert.match(two.stdout, /Deleted 2 matching run\(s\), 2 run\(s\) in all/)
    assert.deepEqual(await present(['old-1', 'old-2', 'old-3', 'new-1']), ['old-3', 'new-1'])

    // Every finished echo: the held run's child is kept, and the output says why.
    const rest = await runAce(['durable:purge', ...scope, '--yes'], db)
    assert.equal(rest.code, 0, rest.stderr)
    assert.match(rest.stdout, /Deleted 3 matching run\(s\)/)
    assert.match(
      rest.stdout,
      /Kept 1 run\(s\) an open run still needs:\n\s+held\/\d+: its parent held is waiting/,
    )
    assert.deepEqual(await present(['old-3', 'new-1', 'new-2', 'old-failed']), ['old-failed'])
    const both = await runAce(['durable:purge', '--status=failed,dead', '--status=cancelled'], db)
    assert.match(both.stdout, /1 run\(s\) match \(failed, dead, cancelled\)/)
  })

  void test('bad flags: clear errors, exit 1, nothing deleted', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['durable:delete'], /Missing required argument "runId"/],
      [['durable:purge'], /E_INVALID_ARGUMENT: --status is required/],
      [['durable:purge', '--workflow=gated'], /E_INVALID_ARGUMENT: --status is required/],
      [
        ['durable:purge', '--status=waiting'],
        /E_INVALID_ARGUMENT: --status "waiting": only finished runs/,
      ],
      [['durable:purge', '--status=failed,bogus'], /E_INVALID_ARGUMENT: --status "bogus"/],
      [
        ['durable:purge', '--status=failed', '--limit=abc'],
        /"limit" flag accepts a "numeric" value/,
      ],
      [
        ['durable:purge', '--status=failed', '--limit=1.5'],
        /E_INVALID_ARGUMENT: --limit must be a whole number/,
      ],
      [
        ['durable:purge', '--status=failed', '--limit=0'],
        /E_INVALID_ARGUMENT: --limit must be a whole number/,
      ],
      [
        ['durable:purge', '--status=failed', '--before=soon'],
        /E_INVALID_ARGUMENT: --before "soon" is not an ISO date/,
      ],
      [
        ['durable:purge', '--status=failed', '--before=2026-02-30'],
        /E_INVALID_ARGUMENT: --before "2026-02-30"/,
      ],
      [['durable:purge', '--status=failed', '--yes', '--force'], /Unknown flag "--force"/],
    ]
    for (const [args, message] of cases) {
      const exit = await runAce(args, db)
      assert.equal(exit.code, 1, `${args.join(' ')}: ${exit.stdout}${exit.stderr}`)
      assert.match(exit.stdout + exit.stderr, message, args.join(' '))
    }
    assert.deepEqual(await present(['old-failed']), ['old-failed'])
  })
})
