/**
 * docs/step-logs.md, runnable: a step logs lines with fields and reports progress; code it
 * calls reaches the same logger through `currentStep()`; the lines of every attempt are kept
 * with the step and read back with `engine.getStepLogs`.
 */
import assert from 'node:assert/strict'
import { currentStep, Engine, MemoryStore, silentLogger } from '@cairn/core'

// A service the step calls: it logs without being handed the step's context.
async function fetchRows(page: number): Promise<number[]> {
  currentStep()?.log.info('fetching page', { page })
  return [page * 10, page * 10 + 1]
}

const engine = new Engine({
  store: new MemoryStore(),
  logger: silentLogger,
  stepLogs: { maxEntries: 100, flushIntervalMs: 500 },
})
engine.register('import', 1, async (ctx) =>
  ctx.localStep(
    'load',
    async (step) => {
      if (step.attempt === 1) {
        step.log.error('the source timed out', { after: '30s' })
        throw new Error('timeout')
      }
      const rows: number[] = []
      for (let page = 1; page <= 3; page++) {
        rows.push(...(await fetchRows(page)))
        step.progress({ done: page, total: 3 })
      }
      step.log.info('loaded', { rows: rows.length })
      return rows.length
    },
    { retries: 2, backoff: { type: 'fixed', delay: 10, jitter: 0 } },
  ),
)
await engine.startDriving()

const { runId } = await engine.start('import', null)
assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
  runId,
  status: 'completed',
  output: 6,
})

const [load] = await engine.getStepLogs(runId)
assert.ok(load !== undefined)
assert.deepEqual(
  load.lines.map((line) => [line.attempt, line.level, line.message, line.fields]),
  [
    [1, 'error', 'the source timed out', { after: '30s' }],
    [2, 'info', 'fetching page', { page: 1 }],
    [2, 'info', 'fetching page', { page: 2 }],
    [2, 'info', 'fetching page', { page: 3 }],
    [2, 'info', 'loaded', { rows: 6 }],
  ],
)
assert.deepEqual([load.progress?.fraction, load.progress?.done, load.progress?.total], [1, 3, 3])
assert.equal(load.dropped, 0)
for (const line of load.lines)
  console.log(
    `attempt ${line.attempt} ${line.level}: ${line.message} ${JSON.stringify(line.fields)}`,
  )
console.log(`progress: ${load.progress?.done}/${load.progress?.total}`)

await engine.close()
