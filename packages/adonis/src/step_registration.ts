/**
 * Registers discovered steps with the engine. A class step is built through the container
 * for every execution (a fresh instance, its `@inject()` constructor services resolved), as a
 * workflow is; a function step (defineStep) is registered as it is.
 */
import type { ApplicationService } from '@adonisjs/core/types'
import { naming } from './file_errors.ts'
import type { Engine, StepContext, StepOptions } from '@cairn/core'
import type { BaseStep } from './base_step.ts'
import type { DiscoveredStep } from './step_discovery.ts'

type RunnableStep = new () => BaseStep<unknown, unknown>

/**
 * `defaultTransport` (config `transport`): where a step that names no transport runs — on that
 * transport's workers instead of in process.
 */
export function registerSteps(
  engine: Engine,
  app: ApplicationService,
  steps: readonly DiscoveredStep[],
  defaultTransport?: string,
): void {
  for (const entry of steps) {
    naming(entry.file, () => {
      const { handler, options } = stepHandler(app, entry)
      const transport = options.transport ?? defaultTransport
      engine.registerStep(entry.name, handler, {
        ...options,
        ...(transport === undefined ? {} : { transport }),
      })
    })
  }
}

/**
 * The app's steps registered in process, whatever their placement: for an engine that runs no
 * step and has no transport (a replay, `durable:replay`). A recorded step's kind does not say
 * where it ran, so a history recorded with remote steps replays the same.
 */
export function registerStepsInProcess(
  engine: Engine,
  app: ApplicationService,
  steps: readonly DiscoveredStep[],
): void {
  for (const entry of steps) {
    naming(entry.file, () => {
      const { handler, options } = stepHandler(app, entry)
      const {
        transport: _transport,
        requires: _requires,
        pickupTimeoutMs: _pickup,
        ...local
      } = options as typeof options & { requires?: unknown; pickupTimeoutMs?: unknown }
      engine.registerStep(entry.name, handler, local)
    })
  }
}

/**
 * A discovered step's handler and options. A class step is built through the container for
 * every execution (a fresh instance, its `@inject()` constructor services resolved), in an
 * engine or in `durable:worker` alike.
 */
export function stepHandler(
  app: ApplicationService,
  entry: DiscoveredStep,
): { handler: (input: unknown, step: StepContext) => unknown; options: StepOptions } {
  if (entry.kind === 'function')
    return {
      handler: entry.step.handler as (input: unknown, step: StepContext) => unknown,
      options: entry.step.options,
    }
  const { name: _name, ...options } = entry.step.step
  const stepClass = entry.step as unknown as RunnableStep
  return {
    handler: async (input: unknown, stepContext: StepContext) => {
      const instance = await app.container.make(stepClass)
      return instance.run(input, stepContext)
    },
    options,
  }
}
