/**
 * `cairn worker` as a real process: it serves the defineStep references a module exports over
 * the db transport on a SQLite file (no store opened), an engine in the test process dispatches
 * to it, and SIGTERM drains it (exit 0). Bad usage is exit 2 with the reason; a module without
 * steps is exit 1; a transport URL's password never reaches the output.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { sqliteTransport } from '@cairn/sql/transport'
import { BIN, cairn } from './cli_fixture.ts'

const STEPS = fileURLToPath(new URL('./fixtures/worker_steps.ts', import.meta.url))

void test('cairn worker runs the exported steps from a transport; SIGTERM drains, exit 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-worker-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'cairn.db')
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--steps', STEPS, '--transport', `sqlite:${path}`, '--worker-id=cli-1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  t.after(() => child.kill('SIGKILL'))
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  while (!out.includes('Taking tasks')) {
    if (child.exitCode !== null) assert.fail(`cairn worker exited: ${out}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.match(
    out,
    /cairn worker "cli-1" on sqlite:.*: 2 step\(s\): (shout, whisper|whisper, shout)/,
  )

  const db = sqliteTransport({ path, pollIntervalMs: 50 })
  const engine = new Engine({
    store: new SqliteStore({ path }),
    logger: silentLogger,
    transports: { db: db.engine() },
  })
  t.after(() => engine.close(0))
  engine.registerStep('shout', () => 'not here', { transport: 'db' })
  engine.registerStep('whisper', () => 'not here', { transport: 'db' })
  engine.register('talk', 1, async (ctx, text: string) => [
    await ctx.step<string>('shout', text),
    await ctx.step<string>('whisper', text),
  ])
  await engine.startDriving()
  const { runId } = await engine.start('talk', 'Hi')
  assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 30_000 }), {
    runId,
    status: 'completed',
    output: [`HI from ${child.pid}`, 'hi'],
  })

  child.kill('SIGTERM')
  assert.equal(await exited, 0, out)
  assert.match(out, /Stopping: draining for up to 10000 ms\nStopped\./)
})

void test('cairn worker: bad usage is exit 2 (a transport URL password masked), a module without steps exit 1', async () => {
  const noSteps = await cairn(['worker', '--transport', 'sqlite:/tmp/x.db'])
  assert.equal(noSteps.code, 2)
  assert.match(noSteps.stderr, /--steps <module> is required/)
  const noTransport = await cairn(['worker', '--steps', STEPS], { CAIRN_TRANSPORT: '' })
  assert.equal(noTransport.code, 2)
  assert.match(noTransport.stderr, /--transport <url> \(or \$CAIRN_TRANSPORT\) is required/)
  // The refusal quotes the URL given, its password masked (main scrubs every line it prints).
  const scheme = await cairn([
    'worker',
    '--steps',
    STEPS,
    '--transport',
    'kafka://u:s3cret-pw@host/x',
  ])
  assert.equal(scheme.code, 2)
  assert.match(scheme.stderr, /--transport kafka:\/\/u:\*\*\*@host\/x is not a transport/)
  assert.doesNotMatch(scheme.stdout + scheme.stderr, /s3cret-pw/)
  const concurrency = await cairn([
    'worker',
    '--steps',
    STEPS,
    '--transport',
    'x.db',
    '--concurrency',
    '0',
  ])
  assert.equal(concurrency.code, 2)
  assert.match(
    concurrency.stderr,
    /--concurrency must be an integer from 1 to 10000, "adaptive" or "adaptive:MIN-MAX", got "0"/,
  )
  const empty = await cairn([
    'worker',
    '--steps',
    fileURLToPath(new URL('./cli_fixture.ts', import.meta.url)),
    '--transport',
    'x.db',
  ])
  assert.equal(empty.code, 1)
  assert.match(empty.stderr, /E_INVALID_ARGUMENT: --steps .*exports no defineStep reference/)
})
