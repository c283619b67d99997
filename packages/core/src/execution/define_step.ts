/**
 * `defineStep`: declare a registered step once, with its types, and use the returned
 * reference both to register it and to call it, so input and output types reach the call.
 *
 *   export const chargeCard = defineStep('charge-card', async (order: Order) => charge(order), { retries: 5 })
 *   engine.registerStep(chargeCard)
 *   const receipt = await ctx.step(chargeCard, order) // typed: Order in, receipt out
 *
 * Option names are checked here, as the module loads: an unknown one fails at import, not at
 * the registration that may come much later (or never, on a process that only calls steps).
 * Their values are checked by `engine.registerStep`.
 */
import { checkOptionKeys } from '../util/known_keys.ts'
import { BACKOFF_OPTIONS, STEP_DEFINITION_OPTIONS } from './option_specs.ts'
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import type { StepHandler, StepOptions, StepReference } from './types.ts'

/** What a Standard Schema accepts, and what it gives back. */
export type SchemaInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']
export type SchemaOutput<S extends StandardSchemaV1> = NonNullable<
  S['~standard']['types']
>['output']

/** With an `input` schema, the handler's input type is the schema's output type. */
export function defineStep<S extends StandardSchemaV1, O>(
  name: string,
  handler: StepHandler<SchemaOutput<S>, O>,
  options: StepOptions & { input: S },
): StepReference<SchemaInput<S>, O>
export function defineStep<I, O>(
  name: string,
  handler: StepHandler<I, O>,
  options?: StepOptions & { input?: undefined },
): StepReference<I, O>
export function defineStep<I, O>(
  name: string,
  handler: StepHandler<I, O>,
  options: StepOptions = {},
): StepReference<I, O> {
  const where = `defineStep("${name}")`
  checkOptionKeys(options, STEP_DEFINITION_OPTIONS, where, { step: name })
  checkOptionKeys(options.backoff, BACKOFF_OPTIONS, `${where} backoff`, { step: name })
  return Object.freeze({ name, handler, options })
}

/**
 * Whether `value` is what `defineStep` returns — checked by shape, not by class, so a reference
 * made by another copy of `@cairn/core` (an app's and a library's) is recognised too. For code
 * that finds steps among a module's exports (`cairn worker`, AdonisJS discovery).
 */
export function isStepReference(value: unknown): value is StepReference<never, unknown> {
  const ref = value as Partial<StepReference> | null
  return (
    typeof value === 'object' &&
    ref !== null &&
    typeof ref.name === 'string' &&
    typeof ref.handler === 'function' &&
    typeof ref.options === 'object'
  )
}
