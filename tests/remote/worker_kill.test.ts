/**
 * kill -9 a worker mid-step (issue 14's first reliability test): its tasks are delivered again
 * once their holds lapse, to a worker started after the kill, and every run completes. From the
 * ledger the step bodies write: each run's body started at most twice (once in the killed
 * worker, once after) and ended once; the store holds one result per run, from one attempt; the
 * transport counted the redeliveries (the series /metrics exports).
 * On Postgres and MariaDB over BullMQ and over the db transport, and on SQLite over the db
 * transport; the engine in this process, the workers real processes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { fleet, until } from './fleet_fixture.ts'
import { FLEET_CASES } from './transport_spec.ts'

const RUNS = 12

for (const { store: storeName, transport } of FLEET_CASES) {
  void test(
    `kill -9 a worker mid-step on ${storeName} over ${transport}: tasks delivered again, every run completes, each result recorded once`,
    { skip: transport !== 'db' && !redisUp && 'Redis is down' },
    async (t) => {
      const f = await fleet(t, storeName, transport)
      const first = await f.startWorker(1_500)
      const runs = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => f.engine.start('job', i)),
      )
      const startsOf = (pid: number | undefined) =>
        f.ledger().filter((line) => line.startsWith('start ') && line.endsWith(` ${pid}`)).length
      await until(() => startsOf(first.pid) >= 4, 'the first worker to start 4 bodies')
      first.kill('SIGKILL')
      const killedStarts = startsOf(first.pid)
      const second = await f.startWorker(100)

      const outcomes = await Promise.all(
        runs.map(({ runId }) => f.engine.waitForRun(runId, { timeoutMs: 60_000 })),
      )
      outcomes.forEach((outcome, i) => {
        assert.ok(outcome.status === 'completed', `run ${i} ${outcome.status}`)
        assert.equal(outcome.output, `${i}:${second.pid}`, 'a result not from the live worker')
      })
      const lines = f.ledger()
      for (const { runId } of runs) {
        const started = lines.filter((line) => line.startsWith(`start ${runId} `)).length
        const ended = lines.filter((line) => line.startsWith(`end ${runId} `)).length
        assert.ok(started >= 1 && started <= 2, `run ${runId}: its body started ${started} times`)
        assert.equal(ended, 1, `run ${runId}: its body ended ${ended} times`)
        const steps = await f.engine.getSteps(runId)
        assert.deepEqual(
          steps.map((s) => [s.name, s.status, s.attempts]),
          [['slow', 'completed', 1]],
        )
      }
      const endedInKilled = lines.filter((l) => l.startsWith('end ') && l.endsWith(` ${first.pid}`))
      assert.equal(endedInKilled.length, 0, 'the killed worker finished a body: the kill came late')
      assert.equal(lines.filter((l) => l.startsWith('start ')).length, RUNS + killedStarts)
      // What /metrics reads as cairn_tasks_redelivered_total: every body the kill interrupted was
      // delivered again (and tasks the killed worker had taken but not started yet).
      const slow = (await f.engine.taskDepth()).find((row) => row.step === 'slow')
      if (transport === 'queue') assert.equal(slow?.redelivered, null, 'the queue transport counts')
      else {
        const redelivered = slow?.redelivered ?? 0
        assert.ok(
          redelivered >= killedStarts && redelivered <= RUNS,
          `${redelivered} redeliveries counted for ${killedStarts} interrupted bodies`,
        )
      }
      t.diagnostic(
        `${storeName}/${transport}: the kill interrupted ${killedStarts} bodies; each ran again once`,
      )
    },
  )
}
