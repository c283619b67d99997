/**
 * kill -9 a worker mid-step (issue 14's first reliability test): its tasks are delivered again
 * once their holds lapse, to a worker started after the kill, and every run completes. From the
 * ledger the step bodies write: each run's body started at most twice (once in the killed
 * worker, once after) and ended once; the store holds one result per run, from one attempt.
 * On Postgres and MariaDB, the engine in this process, the workers real processes on BullMQ.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { bullmqTransport } from '@cairn/bullmq'
import { openStore } from '../helpers/stores.ts'
import { REDIS_URL } from '../helpers/services.ts'
import { dropPrefix, redisUp, uniquePrefix } from '../../packages/bullmq/test/redis_fixture.ts'

const WORKER = fileURLToPath(new URL('./worker_process.ts', import.meta.url))
const RUNS = 12

for (const storeName of ['postgres', 'mysql']) {
  void test(
    `kill -9 a worker mid-step on ${storeName}: tasks delivered again, every run completes, each result recorded once`,
    { skip: !redisUp && 'Redis is down' },
    async (t) => {
      const handle = await openStore(storeName)
      const prefix = uniquePrefix()
      const dir = mkdtempSync(join(tmpdir(), 'cairn-worker-kill-'))
      const ledger = join(dir, 'ledger')
      const transport = bullmqTransport({ connection: REDIS_URL, prefix, stalledIntervalMs: 250 })
      const engine = new Engine({
        store: handle.store,
        logger: silentLogger,
        transports: { redis: transport.engine() },
      })
      const children: ChildProcess[] = []
      t.after(async () => {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
        await engine.close()
        await handle.cleanup()
        await dropPrefix(prefix)
        rmSync(dir, { recursive: true, force: true })
      })
      engine.registerStep('slow', () => 'not here', { transport: 'redis', retries: 0 })
      engine.register('job', 1, async (ctx, n: number) => ctx.step<number>('slow', { n }))
      await engine.startDriving()

      const first = await startWorker(children, prefix, ledger, '1500')
      const runs = await Promise.all(Array.from({ length: RUNS }, (_, i) => engine.start('job', i)))
      await until(() => starts(ledger).length >= 4, 'the first worker to start 4 bodies')
      first.kill('SIGKILL')
      const killedPid = first.pid
      const killedStarts = starts(ledger).filter((line) => line.endsWith(` ${killedPid}`)).length
      await startWorker(children, prefix, ledger, '100')

      const outcomes = await Promise.all(
        runs.map(({ runId }) => engine.waitForRun(runId, { timeoutMs: 60_000 })),
      )
      outcomes.forEach((outcome, i) =>
        assert.deepEqual(outcome, { runId: runs[i]?.runId, status: 'completed', output: i * 10 }),
      )

      const lines = readFileSync(ledger, 'utf8').trim().split('\n')
      for (const { runId } of runs) {
        const started = lines.filter((line) => line.startsWith(`start ${runId} `)).length
        const ended = lines.filter((line) => line.startsWith(`end ${runId} `)).length
        assert.ok(started >= 1 && started <= 2, `run ${runId}: its body started ${started} times`)
        assert.ok(ended >= 1 && ended <= started, `run ${runId}: its body ended ${ended} times`)
        const steps = await engine.getSteps(runId)
        assert.deepEqual(
          steps.map((s) => [s.name, s.status, s.attempts]),
          [['slow', 'completed', 1]],
        )
      }
      // The kill interrupted real work: bodies of the killed worker started and never ended there.
      const endedByKilled = lines.filter(
        (line) => line.startsWith('end ') && line.endsWith(` ${killedPid}`),
      ).length
      assert.ok(
        killedStarts > endedByKilled,
        `the kill interrupted nothing (${killedStarts} started, ${endedByKilled} ended)`,
      )
      t.diagnostic(
        `${storeName}: ${killedStarts} bodies started in the killed worker, ${endedByKilled} ended there; ${lines.filter((l) => l.startsWith('start ')).length} starts in all for ${RUNS} runs`,
      )
    },
  )
}

async function startWorker(
  children: ChildProcess[],
  prefix: string,
  ledger: string,
  workMs: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER, REDIS_URL, prefix, ledger, workMs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before ready`)))
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve()
    })
  })
  return child
}

function starts(ledger: string): string[] {
  try {
    return readFileSync(ledger, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('start '))
  } catch {
    return []
  }
}

async function until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
