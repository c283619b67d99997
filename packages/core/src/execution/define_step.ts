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
import type { StepHandler, StepOptions, StepReference } from './types.ts'

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
