/**
 * `ctx.step(name | ref, input, options?)`: call a step registered with `engine.registerStep`.
 * Recorded as kind `step` (not `local`), so a later move of the step to a remote worker keeps
 * the history. Runs through the same attempts as a local step; the retry policy is the
 * workflow's defaults, overridden by the step's registered options, overridden by the call's.
 *
 * The handler receives its input after a round trip through the codec — what a remote worker
 * would receive — so a value the codec cannot carry fails the step (E_NOT_SERIALIZABLE, never
 * retried) instead of working in-process and breaking later. That encoded text is recorded with
 * every checkpoint the step saves (CheckpointRecord.input), so the timeline can show it.
 *
 * A name this engine has not registered parks the run (E_STEP_NOT_REGISTERED, naming the
 * step): it must not fail for a deploy that forgot a step, nor run anything else in its place.
 * A recorded outcome replays without the handler, so a run past that step is unaffected.
 */
import { ErrorCodes, InvalidArgumentError } from '../errors/index.ts'
import {
  checkPickupTimeout,
  checkPlacement,
  checkRequires,
  type RegisteredStep,
} from '../engine/step_registry.ts'
import { checkCapabilities } from '../wire/capabilities.ts'
import {
  checkCompensate,
  checkStepName,
  runCheckpointedStep,
  withCompensation,
} from './local_step.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { BACKOFF_OPTIONS, STEP_CALL_OPTIONS } from './option_specs.ts'
import { resolveRetryPolicy } from './retry_policy.ts'
import { remoteStep, type RemotePlan } from './remote_step.ts'
import type { TurnRuntime } from './runtime.ts'
import type { AttemptPlan } from './step_attempts.ts'
import { checkStepQueueing, queueLane, type QueueChoice } from './step_queue.ts'
import { checkStepTimeout } from './step_timeout.ts'
import type { LocalStepOptions, StepFn, StepOptions, StepReference } from './types.ts'

export function registeredStep<O>(
  rt: TurnRuntime,
  step: string | StepReference<never, O>,
  input: unknown,
  options?: LocalStepOptions<O>,
): Promise<O> {
  const name = stepName(step)
  const compensate = checkCompensate(name, options?.compensate)
  const registered = rt.findStep(name)
  // Checked even when the step is missing, so a bad call fails the same way on every engine.
  const merged = mergeOptions(name, registered?.options ?? {}, options ?? {})
  if (registered !== undefined && merged.transport !== undefined) {
    const remote = remoteStep<O>(rt, remotePlan(rt, name, input, merged, merged.transport))
    return withCompensation(rt, name, remote, compensate)
  }
  const plan = registered === undefined ? null : attemptPlan(rt, registered, input, merged)
  const result = runCheckpointedStep<O>(rt, name, 'step', plan, (seq) => parkMissing(rt, name, seq))
  return withCompensation(rt, name, result, compensate)
}

function stepName(step: unknown): string {
  const name = typeof step === 'object' && step !== null ? (step as StepReference).name : step
  checkStepName(name)
  return name
}

/** The call's options over the registered ones, field by field (backoff too); validated. */
function mergeOptions(
  name: string,
  registered: StepOptions,
  call: StepOptions & { compensate?: unknown },
): StepOptions {
  if (call === null || typeof call !== 'object')
    throw new InvalidArgumentError(`step "${name}": options must be an object`)
  checkOptionKeys(call, STEP_CALL_OPTIONS, `ctx.step("${name}")`, { step: name })
  checkOptionKeys(call.backoff, BACKOFF_OPTIONS, `ctx.step("${name}") backoff`, { step: name })
  const { compensate: _compensate, ...callOptions } = call
  const merged: StepOptions = { ...registered, ...definedOnly(callOptions) }
  if (registered.backoff !== undefined || callOptions.backoff !== undefined)
    merged.backoff = { ...registered.backoff, ...definedOnly(callOptions.backoff ?? {}) }
  try {
    checkStepTimeout(merged.timeoutMs)
    checkRequires(merged.requires, merged.transport)
    checkPickupTimeout(merged.pickupTimeoutMs, merged.transport)
    checkStepQueueing(merged)
  } catch (error) {
    throw new InvalidArgumentError(`step "${name}": ${(error as Error).message}`)
  }
  return merged
}

function attemptPlan(
  rt: TurnRuntime,
  registered: RegisteredStep,
  input: unknown,
  options: StepOptions,
): AttemptPlan {
  const handler = registered.handler as (
    input: unknown,
    ...rest: Parameters<StepFn<unknown>>
  ) => unknown
  let encoded: string | null | undefined
  const fn: StepFn<unknown> = (stepContext) => {
    // Encoded once (the first attempt), decoded per attempt: each gets its own copy.
    encoded ??=
      input === undefined ? null : rt.codec.encode(input, `input of step "${registered.name}"`)
    return handler(encoded === null ? undefined : rt.codec.decode(encoded), stepContext)
  }
  const choice = notRunQueue(rt, checkStepQueueing(options), registered.name)
  const queue = choice === null ? null : queueLane(rt, choice, input, `step "${registered.name}"`)
  return {
    fn,
    policy: resolveRetryPolicy(options, rt.retryDefaults),
    timeoutMs: options.timeoutMs,
    // Every attempt encodes before it can save, so each checkpoint the step saves carries it.
    encodedInput: () => encoded ?? null,
    ...(queue === null ? {} : { queue }),
  }
}

/** A step placed on a transport: it runs on a worker (remote_step.ts). */
function remotePlan(
  rt: TurnRuntime,
  name: string,
  input: unknown,
  options: StepOptions,
  transport: string,
): RemotePlan {
  let requires: string[]
  try {
    checkPlacement(transport, (candidate) => rt.hasTransport(candidate))
    checkRequires(options.requires, transport)
    checkPickupTimeout(options.pickupTimeoutMs, transport)
    requires = options.requires === undefined ? [] : checkCapabilities(options.requires, 'requires')
  } catch (error) {
    throw new InvalidArgumentError(`step "${name}": ${(error as Error).message}`, {
      details: { step: name, transport },
    })
  }
  const choice = notRunQueue(rt, checkStepQueueing(options), name)
  const queue = choice === null ? null : queueLane(rt, choice, input, `step "${name}"`)
  return {
    name,
    transport,
    requires,
    input,
    policy: resolveRetryPolicy(options, rt.retryDefaults),
    timeoutMs: options.timeoutMs,
    pickupTimeoutMs: options.pickupTimeoutMs,
    ...(queue === null ? {} : { queue }),
  }
}

/**
 * A step may not take a slot of the queue its own run holds one of: with every slot held by
 * runs whose steps wait for one, nothing would ever move.
 */
function notRunQueue(
  rt: TurnRuntime,
  choice: QueueChoice | null,
  step: string,
): QueueChoice | null {
  if (choice === null || choice.queue !== rt.queue) return choice
  throw new InvalidArgumentError(
    `step "${step}": queue "${choice.queue}" is the queue this run holds a slot of; a step of it waiting for another slot could wait forever (give the step a queue of its own)`,
    { details: { step, queue: choice.queue } },
  )
}

function parkMissing(rt: TurnRuntime, name: string, seq: number): void {
  void rt.park({
    code: ErrorCodes.STEP_NOT_REGISTERED,
    message: `step "${name}" (position ${seq}) is not registered on this engine; register it with engine.registerStep and restart, or cancel the run`,
    details: { step: name, seq },
  })
}

// An explicit `undefined` in the call must not erase a registered value.
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
