/**
 * `ctx.transaction`: a step whose database writes commit in the same database transaction as
 * its checkpoint, so they happen exactly once (contracts/transactions.ts). Takes its position
 * at call time like every primitive; a recorded outcome is replayed and the function never
 * runs again. Attempts, retries and events are a local step's (local_step.ts): an attempt that
 * throws rolls back and is retried per the options; only a committed attempt completes.
 */
import { runAsStep } from '../scope/current_context.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkStepName } from './local_step.ts'
import { StepAttempts, type StepPlan } from './step_attempts.ts'
import type { TurnRuntime } from './runtime.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { TRANSACTION_OPTIONS } from './option_specs.ts'
import { resolveRetryPolicy } from './retry_policy.ts'
import type { RetryOptions, TransactionFn } from './types.ts'

export function transactionStep<T, H>(
  rt: TurnRuntime,
  name: string,
  fn: TransactionFn<T, H>,
  options?: RetryOptions,
): Promise<T> {
  checkStepName(name)
  if (typeof fn !== 'function')
    throw new InvalidArgumentError(`transaction "${name}": fn must be a function`)
  refuseLocalOnlyOptions(name, options)
  checkOptionKeys(options, TRANSACTION_OPTIONS, `ctx.transaction("${name}")`, { step: name })
  const policy =
    options === undefined ? rt.defaultRetryPolicy : resolveRetryPolicy(options, rt.retryDefaults)
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'transaction')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  const plan: StepPlan = {
    seq,
    name,
    kind: 'transaction',
    fn: unused,
    policy,
    timeoutMs: undefined,
  }
  new TransactionAttempts(rt, plan, record, fn as TransactionFn<unknown, unknown>).run()
  return outcome
}

/**
 * A local step's `timeoutMs` and `compensate` do not apply (an open transaction cannot be
 * abandoned mid-way; a committed one is undone by a step of your own): refused, not ignored.
 */
function refuseLocalOnlyOptions(name: string, options: RetryOptions | undefined): void {
  for (const key of ['timeoutMs', 'compensate']) {
    if (options !== null && typeof options === 'object' && key in options)
      throw new InvalidArgumentError(
        `transaction "${name}": ${key} is a localStep option; ctx.transaction takes retries and backoff only`,
        { details: { step: name, option: key } },
      )
  }
}

/** The plan's local function: a transactional attempt runs its own (attempt() below). */
const unused = (): never => {
  throw new Error('unreachable: a transactional step runs its function in attempt()')
}

class TransactionAttempts extends StepAttempts {
  readonly #fn: TransactionFn<unknown, unknown>

  constructor(
    rt: TurnRuntime,
    plan: StepPlan,
    record: ConstructorParameters<typeof StepAttempts>[2],
    fn: TransactionFn<unknown, unknown>,
  ) {
    super(rt, plan, record)
    this.#fn = fn
  }

  protected override attempt(): void {
    const step = this.stepContext(null)
    const what = `result of transaction "${this.plan.name}"`
    this.rt
      .commitInTransaction(
        this.step(),
        async (handle) => {
          const value = await this.traced(() => runAsStep(step, () => this.#fn(handle, step)))
          // A value the codec refuses throws here, inside the transaction: nothing commits.
          return value === undefined ? null : this.rt.codec.encode(value, what)
          // Its lines commit with its outcome and the application's writes.
        },
        () => this.finishedLogs(),
      )
      .then(
        (committed) => {
          this.attemptOver()
          if (committed) this.emit('step:completed')
          this.rt.endWork()
        },
        (error: unknown) => this.onFailure(error),
      )
  }
}
