/**
 * docs/schedules.md, runnable: a report every 2 seconds and a nightly cleanup on a cron in
 * Paris time, fired by whichever engine drives — here two — exactly once per window; paused,
 * resumed and triggered by hand.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

const store = new MemoryStore()
const reports: string[] = []

function engine(): Engine {
  const e = new Engine({
    store,
    logger: silentLogger,
    // Declared in code: put in the store when the engine starts driving.
    schedules: [
      {
        id: 'nightly-cleanup',
        workflow: 'cleanup',
        cron: '0 3 * * *',
        timezone: 'Europe/Paris',
        input: { olderThanDays: 30 },
      },
    ],
  })
  e.register('report', 1, async (ctx, input: { scheduledAt: string }) => {
    await ctx.localStep('send', () => void reports.push(input.scheduledAt))
  })
  e.register('cleanup', 1, async () => 'cleaned')
  return e
}

const engines = [engine(), engine()]
for (const e of engines) await e.startDriving()
const [first] = engines as [Engine, Engine]

// Created at run time: every 2 s, the input computed per window.
await first.schedule('report', {
  workflow: 'report',
  everyMs: 2_000,
  input: ({ scheduledAt }) => ({ scheduledAt: scheduledAt.toISOString() }),
  overlap: 'skip', // the default: a window whose previous run is still open is passed over
})

const nightly = await first.getSchedule('nightly-cleanup')
assert.equal(nightly?.upcoming.length, 5) // the next five 03:00s in Paris, DST included
console.log('next cleanup:', nightly?.upcoming[0]?.toISOString())

while (reports.length < 2) await new Promise((resolve) => setTimeout(resolve, 50))
assert.equal(new Set(reports).size, reports.length, 'each window once, by one of the two engines')

await first.pauseSchedule('report')
const before = reports.length
await new Promise((resolve) => setTimeout(resolve, 2_500))
assert.equal(reports.length, before, 'paused: nothing fires')
await first.resumeSchedule('report')

const { runId } = await first.triggerSchedule('nightly-cleanup') // one run now, by hand
assert.deepEqual(await first.waitForRun(runId), { runId, status: 'completed', output: 'cleaned' })

const report = await first.getSchedule('report')
console.log(`report: fired ${report?.fired}, next at ${report?.nextAt?.toISOString()}`)
for (const e of engines) await e.close()
console.log('schedules: ok')
