/**
 * Class-based registered steps for AdonisJS apps. A step is a class in `app/steps` that
 * extends BaseStep, declares `static step = { name, retries?, backoff?, timeoutMs? }` and
 * implements `run(input, stepCtx)`. The provider registers each one at boot; every execution
 * builds a fresh instance through the container, so `@inject()` constructor services work.
 * A workflow calls it with `await ChargeCard.invoke(ctx, input)`, typed by `run`.
 */
import {
  InvalidArgumentError,
  type LocalStepOptions,
  type StepContext,
  type StepOptions,
  type WorkflowContext,
} from '@cairn/core'

/** What a step class declares about itself: its durable name and its retry/timeout options. */
export interface StepDeclaration extends StepOptions {
  /** Recorded at the step's position in every run: renaming it breaks replay of in-flight runs. */
  name: string
}

/** A concrete step class (the constructor BaseStep's statics are called on). */
export interface StepClass<S extends BaseStep<never, unknown> = BaseStep<never, unknown>> {
  new (...args: never[]): S
  step: StepDeclaration
}

/** The input type of a step class's `run`. */
export type StepInput<S extends BaseStep<never, unknown>> = Parameters<S['run']>[0]
/** The output type of a step class's `run`. */
export type StepOutput<S extends BaseStep<never, unknown>> = Awaited<ReturnType<S['run']>>

export abstract class BaseStep<Input = unknown, Output = unknown> {
  // Each subclass declares `static step = { name: 'charge-card' }`; not declared here, so a
  // class without it fails to compile where it is invoked (StepClass).

  /** The step's work. Its result is checkpointed; it may run more than once (retries, crashes). */
  abstract run(input: Input, step: StepContext): Promise<Output>

  /**
   * Calls this step from a workflow body (`ctx.step` under the step's name): the input and
   * output types are those of `run`. `options` override the declared ones for this call.
   */
  static invoke<S extends BaseStep<never, unknown>>(
    this: StepClass<S>,
    ctx: WorkflowContext,
    input: StepInput<S>,
    options?: LocalStepOptions<StepOutput<S>>,
  ): Promise<StepOutput<S>> {
    return ctx.step<StepOutput<S>>(stepDeclaration(this).name, input, options)
  }
}

/** The class's `static step`, checked; `where` names the file in errors. */
export function stepDeclaration(step: StepClass, where?: string): StepDeclaration {
  const declaration = Object.hasOwn(step, 'step') ? step.step : undefined
  const at = where === undefined ? step.name : `${step.name} (${where})`
  if (declaration === null || typeof declaration !== 'object') {
    throw new InvalidArgumentError(`${at} must declare static step = { name }`)
  }
  if (typeof declaration.name !== 'string' || declaration.name === '') {
    throw new InvalidArgumentError(`${at}: static step.name must be a non-empty string`)
  }
  return declaration
}
