/**
 * Child workflows. `ctx.child(workflow, input)` starts a run of another workflow and waits for
 * its result; `ctx.startChild` starts it and hands back a handle to join later. The position
 * is taken at the call; the child is created (idempotently, by a child run id derived from the
 * parent's id and that position unless `childId` is given) and the parent waits — holding no
 * lease — for the child's outcome, which the child delivers to the parent's inbox in the same
 * write that finishes it. A child that cannot start fails the wait at once.
 */
import { createHash } from 'node:crypto'
import { ChildFailedError, InvalidArgumentError } from '../errors/index.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { MAX_ID_LENGTH } from '../util/validate.ts'
import { childSignalName, readChildOutcome } from './child_outcome.ts'
import { CHILD_OPTIONS } from './option_specs.ts'
import { encodeError } from './outcome.ts'
import type { TurnRuntime } from './runtime.ts'
import { checkPriority } from '../store/run_priority.ts'
import type { ChildHandle, ChildOptions } from './types.ts'
import { waitingRecord } from './waiting_record.ts'

export function startChild<O>(
  rt: TurnRuntime,
  workflow: string,
  input: unknown,
  options: ChildOptions = {},
): ChildHandle<O> {
  if (typeof workflow !== 'string' || workflow === '')
    throw new InvalidArgumentError('ctx.child: workflow must be a non-empty string')
  checkOptionKeys(options, CHILD_OPTIONS, `ctx.child("${workflow}")`, { workflow })
  if (options.priority !== undefined) checkPriority(options.priority, `ctx.child("${workflow}")`)
  if (!rt.live) return { runId: '', result: () => rt.never() }
  const seq = rt.takeSeq()
  const childRunId = options.childId ?? defaultChildId(rt.runId, seq)
  const record = rt.recorded(seq, workflow, 'child')
  if (record === null) return { runId: childRunId, result: () => rt.never() }
  const outcome = rt.awaitOutcome<O>(seq)
  // Joined later, or never: a failure nobody awaits must not be an unhandled rejection.
  outcome.catch(() => undefined)
  const handle = { runId: childRunId, result: () => outcome }
  if (record?.status === 'completed' || record?.status === 'failed') return handle
  const startedAt = record?.startedAt ?? rt.clock.now()
  const step = { seq, name: workflow, kind: 'child' as const, attempts: 1, startedAt }
  const wait = (): void => {
    const message = rt.takeMessage(childSignalName(seq))
    if (message !== null) {
      let result: ReturnType<typeof readChildOutcome>
      try {
        result = readChildOutcome(message.payload, rt.codec)
      } catch (error) {
        return rt.unreadable(`the outcome of child "${workflow}" at position ${seq}`, error)
      }
      const encoded = result.ok
        ? { ok: true as const, output: result.output }
        : failure(rt, result.error)
      rt.complete(step, encoded, message.seq)
      return
    }
    const pending =
      record === undefined
        ? waitingRecord({
            runId: rt.runId,
            seq,
            name: workflow,
            kind: 'child',
            wakeAt: null,
            startedAt,
          })
        : null
    rt.waitDurably(
      seq,
      null,
      `child "${workflow}" ${childRunId}`,
      pending,
      childSignalName(seq),
      wait,
    )
  }
  if (record !== undefined) wait()
  else void start(rt, { seq, workflow, input, childRunId, options }, step, wait)
  return handle
}

async function start(
  rt: TurnRuntime,
  c: { seq: number; workflow: string; input: unknown; childRunId: string; options: ChildOptions },
  step: { seq: number; name: string; kind: 'child'; attempts: number; startedAt: number },
  wait: () => void,
): Promise<void> {
  rt.beginWork() // the turn does not suspend while the child is being created
  try {
    const started = await rt.startChildRun({
      parent: { runId: rt.runId, seq: c.seq },
      childRunId: c.childRunId,
      workflow: c.workflow,
      version: c.options.version,
      input: c.input,
      priority: c.options.priority ?? rt.priority,
    })
    if (!rt.live) return
    if (started.ok) wait()
    else {
      const error = new ChildFailedError(
        `child workflow "${c.workflow}" could not start: ${errorMessage(started.error)}`,
        {
          cause: started.error,
          details: { childRunId: c.childRunId, workflow: c.workflow, status: 'not_started' },
        },
      )
      rt.complete(step, failure(rt, error))
    }
  } catch (error) {
    // The store write failed for good (the engine is closing): the turn is lost anyway.
    if (rt.live) rt.complete(step, failure(rt, error))
  } finally {
    rt.endWork()
  }
}

function failure(rt: TurnRuntime, error: unknown) {
  return { ok: false as const, error: encodeError(error, rt.codec) }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `<parent>/<position>`: stable across replays; hashed when the parent id is very long. */
export function defaultChildId(parentRunId: string, seq: number): string {
  const id = `${parentRunId}/${seq}`
  if (id.length <= MAX_ID_LENGTH) return id
  return `${createHash('sha256').update(parentRunId).digest('hex')}/${seq}`
}
