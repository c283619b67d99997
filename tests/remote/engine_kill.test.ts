/**
 * The engine that dispatched is killed while its tasks are in flight (issue 14): a worker
 * finishes them, their results wait in the broker, and another engine — started after the kill,
 * on the same store and transport — records every one; each run completes with one attempt.
 * On Postgres and MariaDB over BullMQ and the db transport, on SQLite over the db transport; the
 * doomed engine a real process (engine_process.ts).
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { openStore } from '../helpers/stores.ts'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { readLedger, startWorker, until } from './fleet_fixture.ts'
import { FLEET_CASES, specFor, transportOf } from './transport_spec.ts'

const ENGINE = fileURLToPath(new URL('./engine_process.ts', import.meta.url))
const RUNS = 8

for (const { store: storeName, transport: transportKind } of FLEET_CASES) {
  void test(
    `the dispatching engine killed with tasks in flight on ${storeName} over ${transportKind}: another engine records every result`,
    { skip: transportKind !== 'db' && !redisUp && 'Redis is down' },
    async (t) => {
      // The store's tables are made by the doomed engine; this handle only names the place.
      const handle = await openStore(storeName)
      const location = handle.location
      if (location === undefined) throw new Error(`${storeName} has no location`)
      const { spec, cleanup } = await specFor(transportKind, location)
      const dir = mkdtempSync(join(tmpdir(), 'cairn-engine-kill-'))
      const ledger = join(dir, 'ledger')
      const children: ChildProcess[] = []
      let survivor: Engine | null = null
      t.after(async () => {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
        await survivor?.close()
        await handle.cleanup()
        await cleanup()
        rmSync(dir, { recursive: true, force: true })
      })

      const doomed = spawn(
        process.execPath,
        [ENGINE, JSON.stringify(location), JSON.stringify(spec), String(RUNS)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      children.push(doomed)
      const runIds = await dispatched(doomed)
      doomed.kill('SIGKILL')
      await new Promise((resolve) => doomed.once('exit', resolve))

      // The worker finishes every task; with no engine alive, the results wait in the transport.
      await startWorker(children, spec, ledger, 50)
      await until(
        () => readLedger(ledger).filter((l) => l.startsWith('end ')).length >= RUNS,
        'the worker to finish every task',
      )

      const transport = await transportOf(spec)
      const engine: Engine = new Engine({
        store: handle.reopen(),
        logger: silentLogger,
        leaseMs: 2_000,
        transports: { remote: transport.engine() },
      })
      survivor = engine
      engine.registerStep('slow', () => 'not here', { transport: 'remote', retries: 0 })
      engine.register('job', 1, async (ctx, n: number) => ctx.step<string>('slow', { n }))
      await engine.startDriving()
      for (const runId of runIds) {
        const outcome = await engine.waitForRun(runId, { timeoutMs: 60_000 })
        assert.equal(outcome.status, 'completed', `run ${runId}`)
        const steps = await engine.getSteps(runId)
        assert.deepEqual(
          steps.map((s) => [s.name, s.status, s.attempts]),
          [['slow', 'completed', 1]],
        )
      }
      const starts = readLedger(ledger).filter((l) => l.startsWith('start ')).length
      assert.equal(starts, RUNS, 'a task ran more than once')
    },
  )
}

function dispatched(child: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.once('exit', (code) => reject(new Error(`engine exited ${code} before dispatching`)))
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n').find((l) => l.startsWith('dispatched '))
      if (line !== undefined) resolve(line.slice('dispatched '.length).split(','))
    })
  })
}
