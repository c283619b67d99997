/**
 * The engine BaseWorkflow's statics use: the one the provider bound at boot. Module state,
 * because `OrderWorkflow.dispatch(…)` has no container at hand (as @adonisjs/queue's
 * `Job.dispatch`).
 */
import { InvalidArgumentError, type Engine } from '@cairn/core'

let engine: Engine | null = null

export function bindEngine(value: Engine | null): void {
  engine = value
}

export function boundEngine(): Engine {
  if (engine === null) {
    throw new InvalidArgumentError(
      'No Cairn engine is booted: add @cairn/adonis/durable_provider to adonisrc.ts providers and dispatch after the app has booted',
    )
  }
  return engine
}
