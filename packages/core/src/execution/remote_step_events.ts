/**
 * The lifecycle events of a remote step (engine/events.ts): `task:dispatched` per publish, and
 * the attempt's outcome as the same `step:*` events an in-process step emits, so metrics and
 * tracing count remote steps too. An outcome's `durationMs` is the worker's measure (its
 * `finishedAt − startedAt`), or, for the engine's own timeout, how long the engine waited.
 */
import { serializeError } from '../codec/index.ts'
import type { TurnRuntime } from './runtime.ts'

export interface RemoteAttemptRef {
  seq: number
  name: string
  attempt: number
}

export function emitDispatched(
  rt: TurnRuntime,
  ref: RemoteAttemptRef,
  dispatch: { transport: string; taskId: string; republished: boolean },
): void {
  if (!rt.events.wants('task:dispatched')) return
  rt.events.emit('task:dispatched', { ...runRef(rt), ...ref, ...dispatch })
}

export type RemoteOutcome =
  | { kind: 'completed'; durationMs: number }
  | { kind: 'failed'; durationMs: number; error: unknown }
  | { kind: 'retried'; durationMs: number; error: unknown; delayMs: number }

export function emitOutcome(rt: TurnRuntime, ref: RemoteAttemptRef, outcome: RemoteOutcome): void {
  const event = `step:${outcome.kind}` as const
  if (!rt.events.wants(event)) return
  const base = { ...runRef(rt), ...ref, durationMs: Math.max(0, outcome.durationMs) }
  if (outcome.kind === 'completed') rt.events.emit('step:completed', base)
  else if (outcome.kind === 'failed')
    rt.events.emit('step:failed', { ...base, error: serializeError(outcome.error) })
  else
    rt.events.emit('step:retried', {
      ...base,
      error: serializeError(outcome.error),
      delayMs: outcome.delayMs,
    })
}

function runRef(rt: TurnRuntime): { runId: string; workflow: string; version: string } {
  return { runId: rt.runId, workflow: rt.workflow, version: rt.version }
}
