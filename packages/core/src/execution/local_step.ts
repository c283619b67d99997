/**
 * `ctx.localStep`: run a function in this process as a checkpointed step. A recorded outcome
 * is replayed, never re-run. The attempts themselves (retries, timeouts, recording) are
 * step_attempts.ts, shared with registered steps (`ctx.step`).
 */
import type { CheckpointKind } from '../contracts/records.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { LOCAL_STEP_OPTIONS } from './option_specs.ts'
import { resolveRetryPolicy } from './retry_policy.ts'
import type { TurnRuntime } from './runtime.ts'
import { StepAttempts, type AttemptPlan } from './step_attempts.ts'
import { checkStepTimeout } from './step_timeout.ts'
import type { LocalStepOptions, StepFn } from './types.ts'

export function localStep<T>(
  rt: TurnRuntime,
  name: string,
  fn: StepFn<T>,
  options?: LocalStepOptions<T>,
): Promise<T> {
  checkStepName(name)
  if (typeof fn !== 'function')
    throw new InvalidArgumentError(`step "${name}": fn must be a function`)
  checkOptionKeys(options, LOCAL_STEP_OPTIONS, `ctx.localStep("${name}")`, { step: name })
  const compensate = checkCompensate(name, options?.compensate)
  checkStepTimeout(options?.timeoutMs)
  const plan: AttemptPlan = {
    fn,
    policy:
      options === undefined ? rt.defaultRetryPolicy : resolveRetryPolicy(options, rt.retryDefaults),
    timeoutMs: options?.timeoutMs,
  }
  return withCompensation(rt, name, runCheckpointedStep<T>(rt, name, 'local', plan), compensate)
}

/**
 * Take the step's position; replay its recorded outcome, or run its attempts. `plan` null: the
 * step cannot run here (`unrunnable` is told its position) — a recorded outcome still replays.
 */
export function runCheckpointedStep<T>(
  rt: TurnRuntime,
  name: string,
  kind: CheckpointKind,
  plan: AttemptPlan | null,
  unrunnable?: (seq: number) => void,
): Promise<T> {
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, kind)
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  if (plan === null) {
    unrunnable?.(seq)
    return rt.never()
  }
  new StepAttempts(rt, { ...plan, seq, name, kind }, record).run()
  return outcome
}

/** Saga: registered as the result is delivered (live or replayed: the same order every time). */
export function withCompensation<T>(
  rt: TurnRuntime,
  name: string,
  result: Promise<T>,
  compensate: ((value: T) => unknown) | undefined,
): Promise<T> {
  if (compensate === undefined) return result
  return result.then((value) => {
    rt.registerCompensation(name, () => compensate(value))
    return value
  })
}

/** Longest step name: a name is recorded with every checkpoint, and shown on every timeline. */
export const MAX_STEP_NAME_LENGTH = 1000

/**
 * A step name is recorded, and compared on replay with the name the code asks for: it must be
 * text every store keeps byte for byte — no NUL, no lone surrogate (SQLite would store U+FFFD,
 * and the replay would see another name: a false non-determinism error).
 */
export function checkStepName(name: unknown, what = 'step name'): asserts name is string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_STEP_NAME_LENGTH)
    throw new InvalidArgumentError(
      `${what} must be a string of 1 to ${MAX_STEP_NAME_LENGTH} characters, got ${typeof name === 'string' ? `${name.length} characters` : typeof name}`,
    )
  if (name.includes('\0') || !name.isWellFormed())
    throw new InvalidArgumentError(
      `${what} ${JSON.stringify(name.slice(0, 80))} must not contain NUL or lone surrogates: stores could not keep it as written`,
    )
}

export function checkCompensate<T>(
  name: string,
  compensate: unknown,
): ((value: T) => unknown) | undefined {
  if (compensate === undefined || typeof compensate === 'function')
    return compensate as ((value: T) => unknown) | undefined
  throw new InvalidArgumentError(`step "${name}": compensate must be a function`)
}
