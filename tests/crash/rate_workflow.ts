/**
 * The workflow of the queue rate test (tests/multi_engine/queue_rate.test.ts): `metered` calls
 * the registered step `metered-call` RATED_CALLS times on the named queue `metered`, which
 * lets RATE.limit attempts start per RATE.periodMs across every engine. Each call appends
 * `rstart <runId> <call> <pid> <ms since epoch>` to a ledger as it starts, so the test counts
 * the starts in every window from what the handlers saw, not from what the store says.
 */
import { appendFileSync } from 'node:fs'
import type { Engine } from '@cairn/core'

export const RATED_CALLS = 2
export const RATE = { limit: 4, periodMs: 2_000 }

export function registerRatedWorkflow(engine: Engine, ledger: string): void {
  engine.registerQueue('metered', { concurrency: 50, rateLimit: RATE })
  engine.registerStep('metered-call', async (input: { runId: string; call: number }) => {
    appendFileSync(ledger, `rstart ${input.runId} ${input.call} ${process.pid} ${Date.now()}\n`)
    return input.call
  })
  engine.register('metered', 1, async (ctx) => {
    let sum = 0
    for (let call = 0; call < RATED_CALLS; call++)
      sum += await ctx.step<number>(
        'metered-call',
        { runId: ctx.runId, call },
        { queue: 'metered' },
      )
    return sum
  })
}

export interface RatedStart {
  runId: string
  call: number
  pid: number
  at: number
}

export function readRatedStarts(text: string): RatedStart[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [kind, runId, call, pid, at] = line.split(' ')
      if (kind !== 'rstart') throw new Error(`bad rate ledger line: ${line}`)
      return { runId: runId as string, call: Number(call), pid: Number(pid), at: Number(at) }
    })
}

/** The most starts in any interval [t, t + windowMs) (t ranging over the starts). */
export function mostInWindow(starts: readonly RatedStart[], windowMs: number): number {
  const times = starts.map((s) => s.at).sort((a, b) => a - b)
  let most = 0
  let from = 0
  for (let to = 0; to < times.length; to++) {
    while ((times[to] as number) - (times[from] as number) >= windowMs) from++
    most = Math.max(most, to - from + 1)
  }
  return most
}
