/**
 * A worker on an incompatible protocol version (issue 14): a worker process that speaks only
 * wire protocol 99 is refused at its announcement (E_PROTOCOL_UNSUPPORTED), its receive is
 * refused too, and it takes nothing — the run it could have served stays unanswered until a
 * compatible worker starts, which runs it once. Postgres and MariaDB over BullMQ and the db
 * transport, SQLite over the db transport; real processes.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { fleet } from './fleet_fixture.ts'
import { FLEET_CASES } from './transport_spec.ts'

const FUTURE = fileURLToPath(new URL('./future_worker.ts', import.meta.url))

for (const { store: storeName, transport } of FLEET_CASES) {
  void test(
    `a worker on an incompatible protocol on ${storeName} over ${transport}: refused, takes nothing`,
    { skip: transport !== 'db' && !redisUp && 'Redis is down' },
    async (t) => {
      const f = await fleet(t, storeName, transport)
      const { runId } = await f.engine.start('job', 7)
      const future = await run(FUTURE, [JSON.stringify(f.spec)])
      assert.equal(future.code, 1, future.stdout)
      assert.match(
        future.stdout,
        /announce: E_PROTOCOL_UNSUPPORTED\nreceive: E_PROTOCOL_UNSUPPORTED/,
      )
      assert.deepEqual(f.ledger(), [], 'the refused worker ran a step')
      assert.notEqual((await f.engine.getRun(runId))?.status, 'completed')
      assert.deepEqual(await f.engine.listWorkers(), [], 'a refused worker is listed')

      const able = await f.startWorker(10)
      const outcome = await f.engine.waitForRun(runId, { timeoutMs: 60_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: `7:${able.pid}` })
      const [step] = await f.engine.getSteps(runId)
      assert.equal(step?.attempts, 1)
    },
  )
}

function run(script: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { timeout: 60_000 }, (error, stdout) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      resolve({ code, stdout })
    })
  })
}
