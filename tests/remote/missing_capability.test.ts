/**
 * A worker with a missing capability (issue 14): the step requires `gpu`, the only live worker
 * process does not offer it — it takes nothing, and the run reads `blocked`, naming the missing
 * capability — then a worker process offering `gpu` starts, takes the published task and the
 * run completes with its one attempt. Postgres and MariaDB over BullMQ and the db transport,
 * SQLite over the db transport; real processes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { FLEET_REFRESH_MS } from '../../packages/core/src/engine/fleet_view.ts'
import { fleet } from './fleet_fixture.ts'
import { FLEET_CASES } from './transport_spec.ts'

for (const { store: storeName, transport } of FLEET_CASES) {
  void test(
    `a missing capability on ${storeName} over ${transport}: the run blocks, then resumes when a capable worker starts`,
    { skip: transport !== 'db' && !redisUp && 'Redis is down' },
    async (t) => {
      const f = await fleet(t, storeName, transport, ['gpu'])
      const plain = await f.startWorker(10, ['pdf'])
      // The engine reads the fleet every FLEET_REFRESH_MS: let it see the plain worker first.
      await new Promise((resolve) => setTimeout(resolve, FLEET_REFRESH_MS + 500))
      const { runId } = await f.engine.start('job', 7)
      const run = await pollUntil(
        () => f.engine.getRun(runId),
        (r) => r?.status === 'blocked',
        'the run to block',
      )
      assert.match(
        run?.waitingOn ?? '',
        /blocked: no live worker running "slow" on "remote" offers gpu/,
      )
      // Listed as blocked too. Read until it is: the run wakes for its remote step's check (10 s
      // after the dispatch) and is claimed, then blocked again — a loaded machine can reach the
      // first read near that moment, and a claimed run reads `running`.
      const blocked = await pollUntil(
        () => f.engine.listRuns({ status: 'blocked' }),
        (page) => page.runs.length > 0,
        'the run listed as blocked',
      )
      assert.deepEqual(
        blocked.runs.map((r) => r.id),
        [runId],
      )
      assert.deepEqual(f.ledger(), [], 'the worker without gpu ran the step')

      const gpu = await f.startWorker(10, ['gpu'])
      const outcome = await f.engine.waitForRun(runId, { timeoutMs: 60_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: `7:${gpu.pid}` })
      const [step] = await f.engine.getSteps(runId)
      assert.equal(step?.attempts, 1)
      assert.deepEqual(f.ledger(), [`start ${runId} ${gpu.pid}`, `end ${runId} ${gpu.pid}`])
      assert.equal(plain.exitCode, null, 'the plain worker is still up')
    },
  )
}

async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
