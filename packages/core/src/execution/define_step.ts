/**
 * `defineStep`: declare a registered step once, with its types, and use the returned
 * reference both to register it and to call it, so input and output types reach the call.
 *
 *   export const chargeCard = defineStep('charge-card', async (order: Order) => charge(order), { retries: 5 })
 *   engine.registerStep(chargeCard)
 *   const receipt = await ctx.step(chargeCard, order) // typed: Order in, receipt out
 */
import type { StepHandler, StepOptions, StepReference } from './types.ts'

export function defineStep<I, O>(
  name: string,
  handler: StepHandler<I, O>,
  options: StepOptions = {},
): StepReference<I, O> {
  return Object.freeze({ name, handler, options })
}
