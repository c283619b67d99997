/**
 * The workflow of the queue kill test (tests/multi_engine/queue_kill.test.ts): `queued` calls
 * the registered step `carrier-call` QUEUED_CALLS times on the named queue `carrier`. Each call
 * appends `qexec <runId> <call> <pid>` to a ledger of its own as it starts and `qdone <runId>
 * <call> <pid>` as it returns, so the test can tell, from the lines' order, how many calls were
 * in flight at any moment across every process (a killed process's open calls end at its
 * `qdead <pid>` line, written by the test).
 */
import { appendFileSync } from 'node:fs'
import type { Engine } from '@cairn/core'

export const QUEUED_CALLS = 3

export interface QueuedInput {
  id: number
  stepMs: number
}

export function registerQueuedWorkflow(
  engine: Engine,
  ledger: string,
  concurrency: number,
  slotLeases = false,
) {
  engine.registerQueue('carrier', { concurrency, slotLeases })
  engine.registerStep(
    'carrier-call',
    async (input: { runId: string; call: number; ms: number }) => {
      appendFileSync(ledger, `qexec ${input.runId} ${input.call} ${process.pid}\n`)
      await new Promise((resolve) => setTimeout(resolve, input.ms))
      appendFileSync(ledger, `qdone ${input.runId} ${input.call} ${process.pid}\n`)
      return input.call
    },
  )
  engine.register('queued', 1, async (ctx, input: QueuedInput) => {
    let sum = 0
    for (let call = 0; call < QUEUED_CALLS; call++) {
      const args = { runId: ctx.runId, call, ms: input.stepMs }
      sum += await ctx.step<number>('carrier-call', args, { queue: 'carrier' })
    }
    return sum
  })
}

export interface QueueSpan {
  runId: string
  call: number
  pid: number
  from: number
  /** The qdone line, the process's qdead line, or Infinity (still open). */
  to: number
}

/** The calls of the ledger at `path` as spans of line numbers. */
export function readQueueSpans(text: string): QueueSpan[] {
  const lines = text.split('\n').filter(Boolean)
  const open = new Map<string, QueueSpan>()
  const spans: QueueSpan[] = []
  const dead = new Map<number, number>()
  lines.forEach((line, n) => {
    const [kind, runId, call, pid] = line.split(' ')
    if (kind === 'qdead') return void dead.set(Number(runId), n)
    const key = `${runId} ${call} ${pid}`
    if (kind === 'qexec') {
      const span = {
        runId: runId as string,
        call: Number(call),
        pid: Number(pid),
        from: n,
        to: Infinity,
      }
      open.set(key, span)
      spans.push(span)
    } else if (kind === 'qdone') {
      const span = open.get(key)
      if (span === undefined) throw new Error(`qdone without qexec at line ${n}: ${line}`)
      span.to = n
      open.delete(key)
    } else throw new Error(`bad queue ledger line ${n}: ${line}`)
  })
  for (const span of spans) if (span.to === Infinity) span.to = dead.get(span.pid) ?? Infinity
  return spans
}

/** The most calls in flight at once (spans overlapping at some line). */
export function mostInFlight(spans: readonly QueueSpan[]): number {
  const events = spans.flatMap((s) => [
    { at: s.from, delta: 1 },
    { at: s.to, delta: -1 },
  ])
  events.sort((a, b) => a.at - b.at || a.delta - b.delta)
  let now = 0
  let most = 0
  for (const e of events) {
    now += e.delta
    most = Math.max(most, now)
  }
  return most
}
