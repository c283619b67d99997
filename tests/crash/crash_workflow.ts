/**
 * The workflow the crash test drives: 10 local steps, with durable sleeps after some of them,
 * signal waits after step 4 and child runs (each two steps) after step 7 for some runs.
 * Each step body appends an "exec" line to an effect ledger kept outside the engine as it starts
 * and a "done" line as it returns (ledger.ts), and returns a value naming that execution, so the
 * test can tell which execution's result was recorded, whether any body ran after its
 * checkpoint was committed, and whether two processes ran one step at once.
 */
import { appendFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { FatalError, type Engine, type WorkflowContext } from '@cairn/core'

export const STEPS = 10

export interface CrashInput {
  id: number
  /** Step indexes after which the run sleeps `sleepMs`. */
  sleepAfter: number[]
  sleepMs: number
  /** Real time each step body takes. */
  stepMs: number
  /**
   * Signals "go" the run waits for after step SIGNALS_AFTER; a client sends payloads 0, 1, …
   * (with signal ids, resent). The run fails unless it receives each exactly once, in order.
   */
  signals?: number
  /** Children (`crash-child`) the run starts at once after step CHILDREN_AFTER and joins. */
  children?: number
}

export const SIGNALS_AFTER = 4
export const CHILDREN_AFTER = 7
export const CHILD_STEPS = 2

/** What child `k` returns: the parent fails unless each child's result arrives, once. */
export function childResult(k: number): number {
  return 100 * (k + 1)
}

export interface StepValue {
  i: number
  exec: string
}

/**
 * When this process's engine found the lease fresh for an attempt (`step:started`'s
 * `leaseCheckedAt`, on the system clock's `performance.now()`): the body writes how long ago
 * that was, so a start delayed by a stall between the check and the body — the documented
 * window — is told from one that should not have started at all (ledger.ts).
 */
export type StartedAt = (runId: string, name: string, attempt: number) => number | undefined

export function watchStepStarts(engine: Engine): StartedAt {
  const started = new Map<string, number>()
  const key = (runId: string, name: string, attempt: number) => `${runId}/${name}/${attempt}`
  engine.on('step:started', (e) => started.set(key(e.runId, e.name, e.attempt), e.leaseCheckedAt))
  return (runId, name, attempt) => {
    const at = started.get(key(runId, name, attempt))
    started.delete(key(runId, name, attempt))
    return at
  }
}

/** The singleton key of a crash run when runs are admitted per key (`singletonKeys` keys). */
export function crashKey(id: number, keys: number): string {
  return `k${id % keys}`
}

export function registerCrashWorkflow(
  engine: Engine,
  ledger: string,
  startedAt: StartedAt = () => undefined,
  /** Admit one run per key at a time, over this many keys (crashKey). Absent: no admission. */
  singletonKeys?: number,
): void {
  const step = (ctx: WorkflowContext, i: number, stepMs: number) =>
    ctx.localStep(`step-${i}`, async ({ attempt }) => {
      const began = performance.now() // the body's first instruction
      const exec = randomUUID()
      const since = startedAt(ctx.runId, `step-${i}`, attempt)
      const gap = since === undefined ? '-' : (began - since).toFixed(1)
      const at = (performance.timeOrigin + began).toFixed(1)
      appendFileSync(
        ledger,
        `exec ${ctx.runId} ${i} ${attempt} ${process.pid} ${exec} ${gap} ${at}\n`,
      )
      await new Promise((resolve) => setTimeout(resolve, stepMs)) // the step's "I/O"
      appendFileSync(ledger, `done ${exec}\n`)
      return { i, exec } satisfies StepValue
    })
  engine.register('crash-child', 1, async (ctx, child: { k: number; stepMs: number }) => {
    for (let i = 0; i < CHILD_STEPS; i++) await step(ctx, i, child.stepMs)
    return childResult(child.k)
  })
  engine.register(
    'crash',
    1,
    async (ctx, input: CrashInput) => {
      let total = 0
      for (let i = 0; i < STEPS; i++) {
        const value = await step(ctx, i, input.stepMs)
        total += value.i
        if (input.sleepAfter.includes(i)) await ctx.sleep(input.sleepMs)
        if (i === SIGNALS_AFTER) await receiveSignals(ctx, input.signals ?? 0)
        if (i === CHILDREN_AFTER) await joinChildren(ctx, input)
      }
      return total
    },
    singletonKeys === undefined
      ? {}
      : { singleton: { key: (input: CrashInput) => crashKey(input.id, singletonKeys) } },
  )
}

async function joinChildren(ctx: WorkflowContext, input: CrashInput): Promise<void> {
  const count = input.children ?? 0
  if (count === 0) return
  const inputs = Array.from({ length: count }, (_, k) => ({ k, stepMs: input.stepMs }))
  const results = await ctx.all<number>('crash-child', inputs)
  if (results.some((result, k) => result !== childResult(k)))
    throw new FatalError(`children returned ${JSON.stringify(results)}`)
}

async function receiveSignals(ctx: WorkflowContext, count: number): Promise<void> {
  const got: unknown[] = []
  for (let n = 0; n < count; n++) got.push(await ctx.waitForSignal('go'))
  if (got.some((payload, n) => payload !== n))
    throw new FatalError(`signals arrived as ${JSON.stringify(got)}, not once each in order`)
}

/** Positions a run of `input` records: its steps, its sleeps, its signal waits. */
export function expectedPositions(input: CrashInput): number {
  return STEPS + input.sleepAfter.length + (input.signals ?? 0) + (input.children ?? 0)
}

export function expectedTotal(): number {
  return (STEPS * (STEPS - 1)) / 2
}
