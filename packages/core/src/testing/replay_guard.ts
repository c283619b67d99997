/**
 * What keeps a replay from running anything: every function the workflow code hands the engine
 * to run (a local step, a side effect, a transaction, a registered step's handler, a
 * compensation) is wrapped so that calling it runs nothing and never settles. The engine calls
 * such a function only for a position the history holds no outcome for — past the end of the
 * history — so the first call marks where the replay ends (NewCodeStop), and the step waits
 * there, unrecorded, until the replay closes its engine.
 *
 * A replayed position never calls its function (the recorded outcome is returned), so the
 * wrapping changes nothing for the positions the replay checks.
 */
import type { Engine } from '../engine/engine.ts'
import { isStepReference } from '../execution/define_step.ts'
import type {
  LocalStepOptions,
  StepContext,
  StepFn,
  StepHandler,
  StepOptions,
  StepReference,
  WorkflowBody,
  WorkflowContext,
  WorkflowOptions,
} from '../execution/types.ts'

/** The first position the code reached that the history has no outcome for. */
export interface NewCodeReached {
  /** What the code asked to run there: `local "ship"`, `side effect "id"`, `step "charge"`. */
  what: string
  /** Its position, when the engine told the function (steps do; side effects do not). */
  seq: number | null
}

const NEVER = new Promise<never>(() => {})

/** Where the replay reached code it must not run; the first such call wins. */
export class NewCodeStop {
  #first: NewCodeReached | null = null

  get first(): NewCodeReached | null {
    return this.#first
  }

  /** `fn` made harmless: calling it records where the replay got to and never settles. */
  guard<F extends (...args: never[]) => unknown>(what: string, _fn: F): F {
    return ((...args: unknown[]) => {
      this.#first ??= { what, seq: positionOf(args) }
      return NEVER
    }) as unknown as F
  }
}

function positionOf(args: unknown[]): number | null {
  // A step function gets its StepContext first; a transaction gets it second.
  for (const arg of args) {
    const seq = (arg as Partial<StepContext> | null)?.seq
    if (typeof arg === 'object' && arg !== null && typeof seq === 'number') return seq
  }
  return null
}

type Compensated = { compensate?: (value: never) => unknown } | undefined

/**
 * `ctx` with every function it is handed guarded. A Proxy over the engine's own context, so
 * every other primitive is the real one, taking positions and checking them as in production.
 */
export function guardedContext(ctx: WorkflowContext, stop: NewCodeStop): WorkflowContext {
  const withCompensation = <O extends Compensated>(name: string, options: O): O =>
    options?.compensate === undefined
      ? options
      : { ...options, compensate: stop.guard(`compensation of "${name}"`, options.compensate) }
  const overrides: Partial<Record<keyof WorkflowContext, unknown>> = {
    localStep: (name: string, fn: StepFn<unknown>, options?: LocalStepOptions<unknown>) =>
      ctx.localStep(name, stop.guard(`local "${name}"`, fn), withCompensation(name, options)),
    sideEffect: (fn: () => unknown, name?: string) =>
      ctx.sideEffect(stop.guard(`side effect "${name ?? 'sideEffect'}"`, fn), name),
    transaction: (name: string, fn: () => unknown, options?: object) =>
      ctx.transaction(name, stop.guard(`transaction "${name}"`, fn), options),
    step: (step: string, input: unknown, options?: Compensated) => {
      const name = typeof step === 'string' ? step : (step as StepReference).name
      return ctx.step(step, input, withCompensation(name, options))
    },
  }
  return new Proxy(ctx, {
    get(target, property) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property))
        return overrides[property as keyof WorkflowContext]
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/**
 * Make `engine.register` and `engine.registerStep` guard what they register, before the
 * code under test registers anything: bodies get a guarded `ctx`, step handlers are guarded.
 * Only the replay's own engine is changed (own properties over the prototype's methods).
 */
export function guardRegistrations(engine: Engine, stop: NewCodeStop): void {
  const register = engine.register.bind(engine)
  const registerStep = engine.registerStep.bind(engine)
  engine.register = (<I, O>(
    name: string,
    version: string | number,
    body: WorkflowBody<I, O>,
    options?: WorkflowOptions,
  ) =>
    register<I, O>(
      name,
      version,
      (ctx, input) => body(guardedContext(ctx, stop), input),
      options,
    )) as Engine['register']
  engine.registerStep = ((
    step: string | StepReference,
    handler?: StepHandler,
    options?: StepOptions,
  ) => {
    if (isStepReference(step))
      return registerStep({
        ...step,
        handler: stop.guard(`step "${step.name}"`, step.handler),
      })
    const name = step as string
    if (typeof handler !== 'function') return registerStep(name, handler as never, options)
    return registerStep(name, stop.guard(`step "${name}"`, handler), options)
  }) as Engine['registerStep']
}
