/**
 * `cairn delete <id>` and `cairn purge` as a user runs them — a child process over a real
 * SQLite file, a Postgres schema and a MariaDB database (docs/retention.md): a finished run
 * goes with its children; an open run, or one its open parent still needs, is refused naming
 * the blocker; purge counts without --yes and deletes with it, oldest first, within --workflow,
 * --before and --limit. Bad usage (no --status, an open status, a bad --limit or --before, an
 * unknown option) is exit 2 before any store is opened.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import { cairn, cliStores, freshDatabase, type Database } from './cli_fixture.ts'
import { cairnWithoutStore } from './in_process.ts'

async function appEngine(db: Database): Promise<Engine> {
  const engine = new Engine({
    store: await db.open(),
    logger: silentLogger,
    pollIntervalMs: 50,
    instanceId: 'app',
  })
  engine.register('greet', 1, async (ctx, name: string) => ctx.localStep('hi', () => `hi ${name}`))
  engine.register('fail', 1, async (ctx) =>
    ctx.localStep('boom', (): string => {
      throw new FatalError('no')
    }),
  )
  engine.register('sum', 1, async (ctx, n: number) => {
    const a = await ctx.child<string>('greet', `a${n}`)
    const b = await ctx.child<string>('greet', `b${n}`)
    return `${a} ${b}`
  })
  engine.register('hold', 1, async (ctx) => {
    await ctx.child('greet', 'child')
    return ctx.waitForSignal('go')
  })
  await engine.startDriving()
  return engine
}

async function finished(engine: Engine, workflow: string, input: unknown, runId: string) {
  await engine.start(workflow, input, { runId })
  await engine.waitForRun(runId, { timeoutMs: 20_000 })
  return runId
}

/** Polls until the run waits; fails (rather than hanging CI) after 20 s. */
async function untilWaiting(engine: Engine, runId: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await engine.getRun(runId))?.status !== 'waiting') {
    if (Date.now() > deadline) assert.fail(`run ${runId} never reached waiting`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function present(engine: Engine, ids: readonly string[]): Promise<string[]> {
  const found: string[] = []
  for (const id of ids) if ((await engine.getRun(id)) !== null) found.push(id)
  return found
}

for (const kind of await cliStores()) {
  void describe(`cairn delete and purge [${kind}]`, () => {
    let db: Database
    let engine: Engine
    before(async () => {
      db = await freshDatabase(kind)
      engine = await appEngine(db)
    })
    after(async () => {
      await engine.close()
      await db.drop()
    })

    void test('delete <id>: a finished run goes with its children; again, E_RUN_NOT_FOUND', async () => {
      await finished(engine, 'sum', 1, 'sum-1')
      const children = (await engine.listRuns({ parentRunId: 'sum-1' })).runs.map((r) => r.id)
      assert.equal(children.length, 2)
      const { code, stdout, stderr } = await cairn(['delete', 'sum-1', '--store', db.url])
      assert.equal(code, 0, stderr)
      assert.equal(stdout, 'Run sum-1 deleted with 2 descendant run(s) (3 runs in all).\n')
      assert.deepEqual(await present(engine, ['sum-1', ...children]), [])
      await finished(engine, 'fail', null, 'failed-1')
      const single = await cairn(['delete', 'failed-1', '--store', db.url])
      assert.equal(single.stdout, 'Run failed-1 deleted.\n')
      const again = await cairn(['delete', 'sum-1', '--store', db.url])
      assert.equal(again.code, 1)
      assert.equal(again.stdout, '')
      assert.match(again.stderr, /^E_RUN_NOT_FOUND: no run with id "sum-1"/)
    })

    void test('delete <id>: an open run, or a child its open parent needs, is E_RUN_NOT_DELETABLE', async () => {
      await engine.start('hold', null, { runId: 'held' })
      await untilWaiting(engine, 'held')
      const child = (await engine.listRuns({ parentRunId: 'held' })).runs[0]?.id as string
      const open = await cairn(['delete', 'held', '--store', db.url])
      assert.equal(open.code, 1)
      assert.match(open.stderr, /^E_RUN_NOT_DELETABLE: run "held" cannot be deleted: it is waiting/)
      const needed = await cairn(['delete', child, '--store', db.url])
      assert.equal(needed.code, 1)
      assert.match(needed.stderr, /^E_RUN_NOT_DELETABLE: .*its parent "held" is waiting/)
      assert.deepEqual(await present(engine, ['held', child]), ['held', child])
      // purge keeps it too, and says which run holds it.
      const purged = await cairn([
        'purge',
        '--store',
        db.url,
        '--status',
        'completed',
        '--workflow',
        'greet',
        '--yes',
      ])
      assert.equal(purged.code, 0, purged.stderr)
      assert.match(
        purged.stdout,
        /Kept 1 run\(s\) an open run still needs:\n {2}\S+: its parent held is waiting/,
      )
      assert.deepEqual(await present(engine, [child]), [child])
      await engine.signal({ runId: 'held', name: 'go' }, 'done')
      await engine.waitForRun('held', { timeoutMs: 20_000 })
      const now = await cairn(['delete', 'held', '--store', db.url])
      assert.equal(now.code, 0, now.stderr)
      assert.deepEqual(await present(engine, ['held', child]), [])
    })

    void test('purge: counts without --yes, then deletes the oldest matching runs', async () => {
      const old: string[] = []
      for (let i = 0; i < 3; i++) old.push(await finished(engine, 'greet', `o${i}`, `old-${i}`))
      await new Promise((resolve) => setTimeout(resolve, 20))
      const boundary = new Date().toISOString()
      await new Promise((resolve) => setTimeout(resolve, 20))
      const young = [await finished(engine, 'greet', 'y', 'young-0')]
      await finished(engine, 'fail', null, 'failed-2')
      const scope = ['--store', db.url, '--status', 'completed', '--workflow', 'greet']

      const preview = await cairn(['purge', ...scope, '--before', boundary])
      assert.equal(preview.code, 0, preview.stderr)
      assert.match(preview.stdout, /^3 run\(s\) match \(completed; workflow greet; created before /)
      assert.match(preview.stdout, /Nothing deleted: add --yes/)
      const limited = await cairn(['purge', ...scope, '--before', boundary, '--limit', '2'])
      assert.match(limited.stdout, /--limit 2: the oldest 2 would be deleted/)
      assert.deepEqual(
        await present(engine, [...old, ...young]),
        [...old, ...young],
        'counted only',
      )

      const two = await cairn(['purge', ...scope, '--before', boundary, '--limit', '2', '--yes'])
      assert.equal(two.code, 0, two.stderr)
      assert.equal(
        two.stdout,
        'Deleted 2 matching run(s), 2 run(s) in all with their descendants.\n',
      )
      assert.deepEqual(await present(engine, [...old, ...young]), ['old-2', 'young-0'])
      const rest = await cairn(['purge', ...scope, '--before', '1h', '--yes'])
      assert.match(rest.stdout, /^Deleted 0 matching run\(s\)/, 'created less than an hour ago')
      const all = await cairn(['purge', ...scope, '--before', boundary, '--yes'])
      assert.match(all.stdout, /^Deleted 1 matching run\(s\)/)
      assert.deepEqual(await present(engine, ['old-2', 'young-0', 'failed-2']), [
        'young-0',
        'failed-2',
      ])
      const both = await cairn([
        'purge',
        '--store',
        db.url,
        '--status',
        'completed,failed',
        '--status',
        'dead',
      ])
      assert.match(both.stdout, /^\d+ run\(s\) match \(completed, failed, dead\)/)
    })
  })
}

void test('cairn --help lists delete and purge; purge --help shows its options', async () => {
  const main = await cairn(['--help'])
  for (const name of ['delete', 'purge'])
    assert.match(main.stdout, new RegExp(`^  ${name}\\s+\\S`, 'm'))
  const purge = await cairn(['purge', '--help'])
  assert.equal(purge.code, 0)
  for (const option of ['--status <s>', '--workflow <w>', '--before <t>', '--limit <n>', '--yes'])
    assert.match(purge.stdout, new RegExp(option.replace(/[<>]/g, '\\$&')))
})

void test('bad usage of delete and purge is E_USAGE, exit 2, before any store is opened', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['delete'], /expected <id>, got 0/],
    [['delete', 'a', 'b'], /expected <id>, got 2/],
    [['delete', 'a', '--force'], /Unknown option '--force'/],
    [['purge'], /--status is required/],
    [['purge', '--workflow', 'greet'], /--status is required/],
    [['purge', '--status', 'waiting'], /--status waiting: only finished runs are deleted/],
    [['purge', '--status', 'completed,running'], /--status running: only finished runs/],
    [['purge', '--status', 'sleeping'], /--status sleeping: expected one of completed, failed/],
    [['purge', '--status', 'completed', '--limit', 'ten'], /--limit ten: expected an integer/],
    [['purge', '--status', 'completed', '--limit', 'NaN'], /--limit NaN: expected an integer/],
    [['purge', '--status', 'completed', '--limit', '0'], /--limit 0: expected an integer/],
    [['purge', '--status', 'completed', '--before', 'soon'], /--before soon: expected an ISO/],
    [['purge', '--status', 'completed', '--before', '2026-02-30'], /--before 2026-02-30/],
    [['purge', '--status', 'completed', '--workflow', ''], /--workflow must not be empty/],
    [['purge', '--status', 'completed', '--yes', '--force'], /Unknown option '--force'/],
    [['purge', 'completed'], /expected no arguments, got 1/],
  ]
  for (const [args, message] of cases) {
    const { code, stderr } = await cairnWithoutStore(args)
    assert.equal(code, 2, `cairn ${args.join(' ')}: ${stderr}`)
    assert.match(stderr, /^E_USAGE: /, args.join(' '))
    assert.match(stderr, message, args.join(' '))
  }
  // Well-formed: it gets as far as opening the (missing) store.
  for (const args of [
    ['delete', 'a'],
    ['purge', '--status', 'completed', '--before', '30d', '--limit', '5'],
  ]) {
    const { code, stderr } = await cairnWithoutStore(args)
    assert.equal(code, 1, `cairn ${args.join(' ')}: ${stderr}`)
    assert.match(stderr, /no SQLite file/)
  }
})
