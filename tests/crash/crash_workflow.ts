/**
 * The workflow the crash test drives: 10 local steps, with durable sleeps after some of them.
 * Each step body appends an "exec" line to an effect ledger kept outside the engine before it
 * returns a value naming that execution, so the test can tell which execution's result was
 * recorded and whether any body ran after its checkpoint was committed.
 */
import { appendFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import type { Engine } from '@cairn/core'

export const STEPS = 10

export interface CrashInput {
  id: number
  /** Step indexes after which the run sleeps `sleepMs`. */
  sleepAfter: number[]
  sleepMs: number
  /** Real time each step body takes. */
  stepMs: number
}

export interface StepValue {
  i: number
  exec: string
}

export function registerCrashWorkflow(engine: Engine, ledger: string): void {
  engine.register('crash', 1, async (ctx, input: CrashInput) => {
    let total = 0
    for (let i = 0; i < STEPS; i++) {
      const value = await ctx.localStep(`step-${i}`, async ({ attempt }) => {
        const exec = randomUUID()
        appendFileSync(ledger, `exec ${ctx.runId} ${i} ${attempt} ${process.pid} ${exec}\n`)
        await new Promise((resolve) => setTimeout(resolve, input.stepMs)) // the step's "I/O"
        return { i, exec } satisfies StepValue
      })
      total += value.i
      if (input.sleepAfter.includes(i)) await ctx.sleep(input.sleepMs)
    }
    return total
  })
}

export function expectedTotal(): number {
  return (STEPS * (STEPS - 1)) / 2
}
