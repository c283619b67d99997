/**
 * The restart storm's workflow: ten steps, local and registered (`ctx.step`) alternating, with
 * a sleep after step SLEEP_AFTER (held in memory for even ids, a durable suspend for odd ones)
 * and a signal wait after step SIGNAL_AFTER. Every step body appends
 * `exec <runId> <step> <attempt> <pid> <execId>` to the effect ledger before its first await and
 * `done <execId>` as it returns (ledger.ts), and returns a value naming that execution, so the
 * test can tell which one was recorded.
 */
import { appendFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { FatalError, type Engine, type WorkflowContext } from '@cairn/core'
import type { StepValue } from './crash_workflow.ts'

export const STORM_STEPS = 10
export const SLEEP_AFTER = 4
export const SIGNAL_AFTER = 6
/** Positions of a storm run: its steps, one sleep, one signal wait. */
export const STORM_POSITIONS = STORM_STEPS + 2

export interface StormInput {
  id: number
  sleepMs: number
  /** Real time each step body takes (its "I/O"). */
  stepMs: number
}

export function stormInput(id: number): StormInput {
  return { id, sleepMs: id % 2 === 0 ? 50 : 300, stepMs: 5 + (id % 11) }
}

export const stormRunId = (id: number) => `storm-${id}`

/** What a completed storm run returns: the sum of its step indexes. */
export const STORM_TOTAL = (STORM_STEPS * (STORM_STEPS - 1)) / 2

interface StepInput {
  i: number
  stepMs: number
}

export function registerStorm(engine: Engine, ledger: string): void {
  const body = async (runId: string, i: number, attempt: number, stepMs: number) => {
    const exec = randomUUID()
    appendFileSync(ledger, `exec ${runId} ${i} ${attempt} ${process.pid} ${exec}\n`)
    if (stepMs > 0) await new Promise((resolve) => setTimeout(resolve, stepMs))
    appendFileSync(ledger, `done ${exec}\n`)
    return { i, exec } satisfies StepValue
  }
  engine.registerStep('storm-step', (input: StepInput, step) =>
    body(step.runId, input.i, step.attempt, input.stepMs),
  )
  engine.register('storm', 1, async (ctx: WorkflowContext, input: StormInput) => {
    let total = 0
    for (let i = 0; i < STORM_STEPS; i++) {
      const value =
        i % 2 === 0
          ? await ctx.localStep(`step-${i}`, (step) =>
              body(ctx.runId, i, step.attempt, input.stepMs),
            )
          : await ctx.step<StepValue>('storm-step', { i, stepMs: input.stepMs } satisfies StepInput)
      total += value.i
      if (i === SLEEP_AFTER) await ctx.sleep(input.sleepMs)
      if (i === SIGNAL_AFTER) {
        const got = await ctx.waitForSignal('go')
        if (got !== input.id) throw new FatalError(`signal carried ${JSON.stringify(got)}`)
      }
    }
    return total
  })
}
