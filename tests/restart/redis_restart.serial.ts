/**
 * F7 for remote steps (issue 14): Redis restarted without persistence mid-load — every queued
 * task and every result in flight is lost with it. Nothing is lost for the runs: each run's
 * waiting checkpoint is its task's outbox, and its checks (10 s, 20 s, … after the dispatch)
 * publish the task again; every run completes, each with one attempt and one recorded result.
 * On the BullMQ transport and on the @adonisjs/queue transport's Redis adapter. Stops the
 * machine's shared Redis, so it runs in the serial phase.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisUp } from '../../packages/bullmq/test/redis_fixture.ts'
import { fleet, until } from '../remote/fleet_fixture.ts'
import { startRedis, stopRedis } from './service_control.ts'

const RUNS = 20

for (const transport of ['bullmq', 'queue'] as const)
  void test(
    `Redis restarted without persistence mid-load (${transport}): tasks published again from the store, every run completes`,
    { skip: !redisUp && 'Redis is down', timeout: 240_000 },
    async (t) => {
      const f = await fleet(t, 'postgres', transport)
      await f.startWorker(300)
      const runs = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => f.engine.start('job', i)),
      )
      const ends = () => f.ledger().filter((line) => line.startsWith('end ')).length
      await until(() => ends() >= 4, 'a few bodies to finish before the restart')
      try {
        await stopRedis()
        await new Promise((resolve) => setTimeout(resolve, 1_000))
      } finally {
        await startRedis()
      }
      // The broker came back empty: runs whose tasks it held make no progress until their check
      // (held in memory for their result, then suspended: running or waiting, never completed).
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      const stalled = (await Promise.all(runs.map(({ runId }) => f.engine.getRun(runId)))).filter(
        (run) => run?.status !== 'completed',
      ).length
      assert.ok(stalled > 0, 'no task was lost with Redis: the test restarted it too late')
      const outcomes = await Promise.all(
        runs.map(({ runId }) => f.engine.waitForRun(runId, { timeoutMs: 180_000 })),
      )
      outcomes.forEach((outcome, i) =>
        assert.ok(outcome.status === 'completed', `run ${i} ${outcome.status}`),
      )
      const lines = f.ledger()
      for (const { runId } of runs) {
        const started = lines.filter((line) => line.startsWith(`start ${runId} `)).length
        assert.ok(started >= 1 && started <= 2, `run ${runId}: its body started ${started} times`)
        const steps = await f.engine.getSteps(runId)
        assert.deepEqual(
          steps.map((s) => [s.name, s.status, s.attempts]),
          [['slow', 'completed', 1]],
        )
      }
      const starts = lines.filter((line) => line.startsWith('start ')).length
      t.diagnostic(
        `${RUNS} runs: ${stalled} not completed 3 s after the restart (their tasks lost), all completed after their checks; ${starts} body starts`,
      )
    },
  )
