/**
 * A worker SIGSTOPped past its hold, then continued (issue 14): while it is stopped its tasks
 * are delivered again and completed by another worker; when it continues, it finishes the same
 * attempts and sends their results — which the engine refuses (one acceptance per task id), so
 * every run keeps the live worker's result. On Postgres and MariaDB over BullMQ and the db
 * transport, on SQLite over the db transport; real processes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { fleet, until } from './fleet_fixture.ts'
import { FLEET_CASES } from './transport_spec.ts'

const RUNS = 8

for (const { store: storeName, transport } of FLEET_CASES) {
  void test(
    `a worker paused past its hold on ${storeName} over ${transport}: its late results change nothing`,
    { skip: transport !== 'db' && !redisUp && 'Redis is down' },
    async (t) => {
      const f = await fleet(t, storeName, transport)
      const paused = await f.startWorker(1_000)
      const runs = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => f.engine.start('job', i)),
      )
      const startedIn = (pid: number | undefined) =>
        f.ledger().filter((l) => l.startsWith('start ') && l.endsWith(` ${pid}`))
      await until(() => startedIn(paused.pid).length >= 3, 'the first worker to start 3 bodies')
      paused.kill('SIGSTOP')
      const held = startedIn(paused.pid).map((line) => line.split(' ')[1])
      const live = await f.startWorker(50)
      const outcomes = await Promise.all(
        runs.map(({ runId }) => f.engine.waitForRun(runId, { timeoutMs: 60_000 })),
      )
      paused.kill('SIGCONT')
      // The paused worker finishes its bodies and sends their results: wait for its end lines.
      await until(
        () =>
          f.ledger().filter((l) => l.startsWith('end ') && l.endsWith(` ${paused.pid}`)).length >=
          held.length,
        'the continued worker to finish its bodies',
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000)) // its results reach the engine
      for (const [i, { runId }] of runs.entries()) {
        const outcome = outcomes[i]
        assert.ok(outcome?.status === 'completed', `run ${i} ${outcome?.status}`)
        assert.equal(outcome.output, `${i}:${live.pid}`)
        const [step] = await f.engine.getSteps(runId)
        assert.equal(
          step?.output,
          `${i}:${live.pid}`,
          `run ${runId}: a late result replaced the recorded one`,
        )
        assert.equal(step?.attempts, 1)
      }
      t.diagnostic(
        `${storeName}/${transport}: ${held.length} bodies paused, run again elsewhere, finished late and refused`,
      )
    },
  )
}
