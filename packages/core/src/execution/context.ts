/**
 * The `ctx` a workflow body receives: a thin facade over one turn. Every primitive takes its
 * position synchronously at call time, so `Promise.all([ctx.localStep(…), ctx.sleep(…)])`
 * numbers its branches the same way on every replay.
 */
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import type { Duration } from '../util/duration.ts'
import { breakpoint } from './breakpoint.ts'
import { continueAsNew } from './continue_as_new.ts'
import { startChild } from './child.ts'
import { localStep } from './local_step.ts'
import { ALL_OPTIONS, ALL_SETTLED_OPTIONS } from './option_specs.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { registeredStep } from './registered_step.ts'
import { transactionStep } from './transaction_step.ts'
import { patched } from './patched.ts'
import { setEvent } from './set_event.ts'
import { upsertSearchAttributes } from './search_attributes.ts'
import { onUpdate } from './update.ts'
import { webhook } from './webhook.ts'
import { sideEffect } from './side_effect.ts'
import { waitForSignal } from './signal_wait.ts'
import { waitForEvent } from './event_wait.ts'
import { sleep, sleepUntil } from './sleep.ts'
import type { Turn } from './turn.ts'
import type {
  AllOptions,
  ChildHandle,
  ChildOptions,
  LocalStepOptions,
  StepCallOptions,
  SignalWaitOptions,
  EventWaitOptions,
  StepFn,
  StepReference,
  RetryOptions,
  TransactionFn,
  UpdateOptions,
  Webhook,
  WorkflowContext,
} from './types.ts'

export class TurnContext implements WorkflowContext {
  readonly #turn: Turn

  constructor(turn: Turn) {
    this.#turn = turn
  }

  get runId(): string {
    return this.#turn.runId
  }

  get workflow(): string {
    return this.#turn.workflow
  }

  get version(): string {
    return this.#turn.version
  }

  localStep<T>(name: string, fn: StepFn<T>, options?: LocalStepOptions<T>): Promise<T> {
    return localStep(this.#turn, name, fn, options)
  }

  step<I, O>(step: StepReference<I, O>, input: I, options?: StepCallOptions<O>): Promise<O>
  step<O = unknown>(name: string, input: unknown, options?: StepCallOptions<O>): Promise<O>
  step<O>(
    step: string | StepReference<never, O>,
    input: unknown,
    options?: StepCallOptions<O>,
  ): Promise<O> {
    return registeredStep<O>(this.#turn, step, input, options)
  }

  transaction<T, H>(name: string, fn: TransactionFn<T, H>, options?: RetryOptions): Promise<T> {
    return transactionStep(this.#turn, name, fn, options)
  }

  now(): Date {
    return new Date(this.#turn.now())
  }

  sideEffect<T>(fn: () => T | Promise<T>, name?: string): Promise<T> {
    return sideEffect(this.#turn, fn, name)
  }

  patched(id: string): boolean {
    return patched(this.#turn, id)
  }

  sleep(duration: Duration): Promise<void> {
    return sleep(this.#turn, duration)
  }

  sleepUntil(until: Date | number): Promise<void> {
    return sleepUntil(this.#turn, until)
  }

  waitForSignal<T = unknown>(name: string, options?: SignalWaitOptions): Promise<T> {
    return waitForSignal<T>(this.#turn, name, options)
  }

  waitForEvent<T = unknown>(name: string, options?: EventWaitOptions): Promise<T> {
    return waitForEvent<T>(this.#turn, name, options)
  }

  breakpoint<T = unknown>(label: string): Promise<T | undefined> {
    return breakpoint<T>(this.#turn, label)
  }

  setEvent(key: string, value: unknown): Promise<void> {
    return setEvent(this.#turn, key, value)
  }

  upsertSearchAttributes(attributes: SearchAttributeUpsert): Promise<void> {
    return upsertSearchAttributes(this.#turn, attributes)
  }

  onUpdate<A = unknown>(name: string, options?: UpdateOptions<A>): Promise<A> {
    return onUpdate<A>(this.#turn, name, options)
  }

  webhook(): Promise<Webhook> {
    return webhook(this.#turn, this.#turn.webhookUrl)
  }

  continueAsNew(input: unknown): Promise<never> {
    return continueAsNew(this.#turn, input)
  }

  child<O = unknown>(workflow: string, input: unknown, options?: ChildOptions): Promise<O> {
    return startChild<O>(this.#turn, workflow, input, options).result()
  }

  startChild<O = unknown>(
    workflow: string,
    input: unknown,
    options?: ChildOptions,
  ): ChildHandle<O> {
    return startChild<O>(this.#turn, workflow, input, options)
  }

  all<O = unknown>(
    workflow: string,
    inputs: readonly unknown[],
    options: AllOptions = {},
  ): Promise<O[]> {
    checkOptionKeys(options, ALL_OPTIONS)
    const { mode = 'failFast', ...childOptions } = options
    const results = inputs.map((input) => this.child<O>(workflow, input, childOptions))
    if (mode === 'failFast') return Promise.all(results)
    return Promise.allSettled(results).then((settled) => {
      const failed = settled.find((s) => s.status === 'rejected')
      if (failed !== undefined) throw failed.reason
      return settled.map((s) => (s as PromiseFulfilledResult<O>).value)
    })
  }

  allSettled<O = unknown>(
    workflow: string,
    inputs: readonly unknown[],
    options: Omit<AllOptions, 'mode'> = {},
  ): Promise<PromiseSettledResult<O>[]> {
    checkOptionKeys(options, ALL_SETTLED_OPTIONS)
    return Promise.allSettled(inputs.map((input) => this.child<O>(workflow, input, options)))
  }
}
