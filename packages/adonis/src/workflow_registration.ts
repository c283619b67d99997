/**
 * Registers discovered workflow classes with the engine. The container builds an instance for
 * every turn, so `@inject()` constructor services resolve as in a controller; `static workflow`
 * gives the name, the version and the engine's workflow options.
 */
import type { ApplicationService } from '@adonisjs/core/types'
import type { Engine } from '@cairn/core'
import type { BaseWorkflow } from './base_workflow.ts'
import type { DiscoveredWorkflow } from './discovery.ts'

type RunnableWorkflow = new () => BaseWorkflow<unknown, unknown>

export function registerWorkflows(
  engine: Engine,
  app: ApplicationService,
  workflows: readonly DiscoveredWorkflow[],
): void {
  for (const { workflow, name, version } of workflows) {
    const { name: _name, version: _version, ...options } = workflow.workflow
    const workflowClass = workflow as unknown as RunnableWorkflow
    engine.register(
      name,
      version,
      async (ctx, input: unknown) => {
        const instance = await app.container.make(workflowClass)
        return instance.run(ctx, input)
      },
      options,
    )
  }
}
