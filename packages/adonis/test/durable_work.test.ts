/**
 * `node ace durable:work` in the fixture app, as a child process: it drives runs the test
 * process starts, drains on SIGTERM/SIGINT (an in-flight step finishes), hands back at once on a
 * second signal, and refuses a bad flag.
 */
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileAppears, runAce, startAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'
import { tempDir } from './helpers.ts'

const READY = /Driving runs\./

void test('drives runs started elsewhere; SIGTERM drains the step in flight, then exit 0', async (t) => {
  const dir = await tempDir(t)
  const db = join(dir, 'durable.sqlite')
  const client = await clientEngine(t, db)
  const worker = startAce(['durable:work', '--instance-id=worker-1', '--concurrency=3'], db)
  t.after(() => worker.child.kill('SIGKILL'))
  const banner = await worker.waitForOutput(READY)
  assert.match(
    banner,
    /Cairn worker "worker-1": store "sqlite" \(sqlite\), concurrency 3, drain timeout 10000 ms/,
  )
  assert.match(banner, /3 workflow version\(s\) registered: convert@1, echo@1, gated@1/)

  const echo = await client.start('echo', 'hi')
  assert.deepEqual(await client.waitForRun(echo.runId, { timeoutMs: 60_000 }), {
    runId: echo.runId,
    status: 'completed',
    output: 'hi',
  })
  assert.equal((await client.getRun(echo.runId))?.leaseOwner, 'worker-1')

  const gate = join(dir, 'gate')
  const gated = await client.start('gated', { gate })
  await fileAppears(`${gate}.entered`, worker)
  worker.child.kill('SIGTERM')
  await worker.waitForOutput(/SIGTERM received: draining for up to 10000 ms/)
  // The drain waits for the step: it can only finish once the gate opens, after the signal.
  await writeFile(gate, '')
  const exit = await worker.exited
  assert.equal(exit.code, 0, exit.stderr)
  assert.match(exit.stdout, /Drained: every executing run finished or suspended/)
  assert.deepEqual(await client.waitForRun(gated.runId, { timeoutMs: 1 }), {
    runId: gated.runId,
    status: 'completed',
    output: 'gate opened',
  })
})

void test('a second signal during the drain hands the executing run back at once (exit 1)', async (t) => {
  const dir = await tempDir(t)
  const db = join(dir, 'durable.sqlite')
  const client = await clientEngine(t, db)
  const worker = startAce(['durable:work'], db)
  t.after(() => worker.child.kill('SIGKILL'))
  await worker.waitForOutput(READY)
  const gate = join(dir, 'gate')
  const { runId } = await client.start('gated', { gate })
  await fileAppears(`${gate}.entered`, worker)
  worker.child.kill('SIGINT')
  await worker.waitForOutput(/SIGINT received: draining/)
  worker.child.kill('SIGINT')
  const exit = await worker.exited
  assert.equal(exit.code, 1)
  assert.match(exit.stdout, /Stopped before the drain finished: 1 run\(s\) handed back/)
  // Handed back: claimable at once by another process, its one claim counted, never finished.
  const run = await client.getRun(runId)
  assert.equal(run?.status, 'pending')
  assert.equal(run?.turns, 1)
})

void test('--drain-timeout overrides the config: 0 hands the executing run back and exits 0', async (t) => {
  const dir = await tempDir(t)
  const db = join(dir, 'durable.sqlite')
  const client = await clientEngine(t, db)
  const worker = startAce(['durable:work', '--drain-timeout=0'], db)
  t.after(() => worker.child.kill('SIGKILL'))
  assert.match(await worker.waitForOutput(READY), /drain timeout 0 ms/)
  const gate = join(dir, 'gate')
  const { runId } = await client.start('gated', { gate })
  await fileAppears(`${gate}.entered`, worker)
  worker.child.kill('SIGTERM')
  const exit = await worker.exited
  assert.equal(exit.code, 0, exit.stderr)
  assert.match(exit.stdout, /Drain timeout reached: 1 run\(s\) handed back to the store/)
  assert.equal((await client.getRun(runId))?.status, 'pending')
})

void test('a bad flag is a clear error with exit code 1, before anything boots', async (t) => {
  const dir = await tempDir(t)
  const db = join(dir, 'durable.sqlite')
  const concurrency = await runAce(['durable:work', '--concurrency=0'], db)
  assert.equal(concurrency.code, 1)
  assert.match(
    concurrency.stderr,
    /E_INVALID_ARGUMENT: --concurrency must be an integer from 1 to 1000000, got 0/,
  )
  const instance = await runAce(['durable:work', '--instance-id=has space'], db)
  assert.equal(instance.code, 1)
  assert.match(
    instance.stderr,
    /E_INVALID_ARGUMENT: --instance-id must be 1–255 printable characters/,
  )
})

void test('a store it cannot open: the error code and message, exit code 1', async (t) => {
  const dir = await tempDir(t)
  // The store makes a missing directory; a path through a regular file cannot be made.
  await writeFile(join(dir, 'a-file'), '')
  const exit = await runAce(['durable:work'], join(dir, 'a-file', 'durable.sqlite'))
  assert.equal(exit.code, 1)
  assert.match(
    exit.stderr,
    /E_STORE_FAILURE: sqlite store: open failed: unable to open database file/,
  )
  assert.doesNotMatch(exit.stdout, /Driving runs/)
})
