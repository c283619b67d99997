/**
 * The engine that dispatched is killed while its tasks are in flight (issue 14): a worker
 * finishes them, their results wait in the broker, and another engine — started after the kill,
 * on the same store and transport — records every one; each run completes with one attempt.
 * On Postgres and MariaDB, the doomed engine a real process (engine_process.ts), BullMQ.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { MysqlStore } from '@cairn/sql/mysql'
import { PostgresStore } from '@cairn/sql/postgres'
import { bullmqTransport } from '@cairn/bullmq'
import { MYSQL_URL, PG_URL, REDIS_URL } from '../helpers/services.ts'
import { dropMysqlDatabase, dropPostgresSchema } from '../helpers/stores.ts'
import { dropPrefix, redisUp, uniquePrefix } from '../../packages/bullmq/test/redis_fixture.ts'
import { readLedger, startWorker, until } from './fleet_fixture.ts'

const ENGINE = fileURLToPath(new URL('./engine_process.ts', import.meta.url))
const RUNS = 8

for (const storeName of ['postgres', 'mysql'] as const) {
  void test(
    `the dispatching engine killed with tasks in flight on ${storeName}: another engine records every result`,
    { skip: !redisUp && 'Redis is down' },
    async (t) => {
      const place = `cairn_t_${randomBytes(6).toString('hex')}`
      const prefix = uniquePrefix()
      const dir = mkdtempSync(join(tmpdir(), 'cairn-engine-kill-'))
      const ledger = join(dir, 'ledger')
      const children: ChildProcess[] = []
      let survivor: Engine | null = null
      t.after(async () => {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
        await survivor?.close()
        if (storeName === 'postgres') await dropPostgresSchema(place)
        else await dropMysqlDatabase(place)
        await dropPrefix(prefix)
        rmSync(dir, { recursive: true, force: true })
      })

      const doomed = spawn(
        process.execPath,
        [ENGINE, storeName, place, REDIS_URL, prefix, String(RUNS)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      children.push(doomed)
      const runIds = await dispatched(doomed)
      doomed.kill('SIGKILL')
      await new Promise((resolve) => doomed.once('exit', resolve))

      // The worker finishes every task; with no engine alive, the results wait in the broker.
      await startWorker(children, prefix, ledger, 50)
      await until(
        () => readLedger(ledger).filter((l) => l.startsWith('end ')).length >= RUNS,
        'the worker to finish every task',
      )

      const transport = bullmqTransport({ connection: REDIS_URL, prefix, stalledIntervalMs: 250 })
      const engine: Engine = new Engine({
        store: storeOf(storeName, place),
        logger: silentLogger,
        leaseMs: 2_000,
        transports: { redis: transport.engine() },
      })
      survivor = engine
      engine.registerStep('slow', () => 'not here', { transport: 'redis', retries: 0 })
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

function storeOf(kind: 'postgres' | 'mysql', place: string): StateStore {
  return kind === 'postgres'
    ? new PostgresStore({ connectionString: PG_URL, schema: place, max: 4 })
    : new MysqlStore({ uri: MYSQL_URL, database: place, max: 4 })
}
