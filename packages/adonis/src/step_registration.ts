/**
 * Registers discovered steps with the engine. A class step is built through the container
 * for every execution (a fresh instance, its `@inject()` constructor services resolved), as a
 * workflow is; a function step (defineStep) is registered as it is.
 */
import type { ApplicationService } from '@adonisjs/core/types'
import { naming } from './file_errors.ts'
import type { Engine, StepContext } from '@cairn/core'
import type { BaseStep } from './base_step.ts'
import type { DiscoveredStep } from './step_discovery.ts'

type RunnableStep = new () => BaseStep<unknown, unknown>

export function registerSteps(
  engine: Engine,
  app: ApplicationService,
  steps: readonly DiscoveredStep[],
): void {
  for (const entry of steps) {
    naming(entry.file, () => register(engine, app, entry))
  }
}

function register(engine: Engine, app: ApplicationService, entry: DiscoveredStep): void {
  if (entry.kind === 'function') {
    engine.registerStep(entry.step)
    return
  }
  const { name: _name, ...options } = entry.step.step
  const stepClass = entry.step as unknown as RunnableStep
  engine.registerStep(
    entry.name,
    async (input: unknown, stepContext: StepContext) => {
      const instance = await app.container.make(stepClass)
      return instance.run(input, stepContext)
    },
    options,
  )
}
