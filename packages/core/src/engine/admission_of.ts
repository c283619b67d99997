/**
 * The admission a new run of a singleton workflow is created under (CreateRunOp.admission):
 * its key computed from the input as the run will see it — decoded from what is stored — so
 * a start, a child start and a fork of the same input always land on the same key.
 */
import type { Admission } from '../contracts/index.ts'
import type { Codec } from '../contracts/codec.ts'
import { InvalidArgumentError, SingletonFullError } from '../errors/index.ts'
import type { SingletonOptions } from '../execution/types.ts'
import { checkAdmissionKey } from '../store/admission_check.ts'
import type { RegisteredWorkflow } from './registry.ts'

/** Undefined for a workflow without `singleton`. Errors thrown by `key` are the caller's. */
export function admissionOf(
  workflow: RegisteredWorkflow,
  encodedInput: string,
  codec: Codec,
  runId: string,
): Admission | undefined {
  const singleton = workflow.options.singleton as SingletonOptions<unknown> | undefined
  if (singleton === undefined) return undefined
  const input = codec.decode(encodedInput)
  const key: unknown = singleton.key(input)
  if (typeof key !== 'string')
    throw new InvalidArgumentError(
      `workflow "${workflow.name}": singleton key must return a string, got ${key === null ? 'null' : typeof key}`,
      { details: { workflow: workflow.name, runId } },
    )
  checkAdmissionKey(key, `workflow "${workflow.name}": singleton key`, runId)
  const onFull = singleton.onFull ?? 'queue'
  return {
    scope: workflow.name,
    key,
    limit: singleton.limit ?? 1,
    onFull,
    maxQueueDepth: onFull === 'queue' ? (singleton.maxQueueDepth ?? null) : null,
  }
}

/** A create refused by admission: the start's error, with what the store found. */
export function singletonFull(
  workflow: string,
  admission: Admission,
  found: { admitted: number; queued: number },
): SingletonFullError {
  const queue =
    admission.onFull === 'queue' ? ` and its queue is full (${found.queued} queued)` : ''
  return new SingletonFullError(
    `workflow "${workflow}": singleton key ${JSON.stringify(admission.key)} has ${found.admitted} of ${admission.limit} runs admitted${queue}`,
    {
      details: {
        workflow,
        key: admission.key,
        limit: admission.limit,
        admitted: found.admitted,
        queued: found.queued,
      },
    },
  )
}
