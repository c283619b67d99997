/**
 * Registers discovered workflow classes with the engine. The container builds an instance for
 * every turn, so `@inject()` constructor services resolve as in a controller; `static workflow`
 * gives the name, the version and the engine's workflow options. An error the engine raises
 * for a class (an unknown option) is rethrown naming its file.
 */
import type { ApplicationService } from '@adonisjs/core/types'
import { naming } from './file_errors.ts'
import { InvalidArgumentError, type DeadLetter, type Engine } from '@cairn/core'
import type { BaseWorkflow } from './base_workflow.ts'
import type { DiscoveredWorkflow } from './discovery.ts'

type RunnableWorkflow = new () => BaseWorkflow<unknown, unknown>

export function registerWorkflows(
  engine: Engine,
  app: ApplicationService,
  workflows: readonly DiscoveredWorkflow[],
): void {
  for (const entry of workflows) {
    naming(entry.file, () => register(engine, app, entry))
  }
}

function register(engine: Engine, app: ApplicationService, entry: DiscoveredWorkflow): void {
  const { workflow, name, version } = entry
  // Every other key of `static workflow` is an engine option, checked by name there: one
  // Cairn does not have (an @adonis-agora/durable `singleton`) fails boot, never ignored.
  const { name: _name, version: _version, ...options } = workflow.workflow
  const workflowClass = workflow as unknown as RunnableWorkflow
  const deadLetter = registerDeadLetter(engine, app, entry)
  const schedule = (workflow as { schedule?: unknown }).schedule
  if (schedule !== undefined) {
    if ((options as { schedule?: unknown }).schedule !== undefined)
      throw new InvalidArgumentError(
        `workflow "${name}" declares both static schedule and static workflow.schedule: keep one`,
        { details: { workflow: name } },
      )
    ;(options as { schedule?: unknown }).schedule = schedule
  }
  if (deadLetter !== null)
    (options as { deadLetterWorkflow?: string }).deadLetterWorkflow = deadLetter
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

/**
 * A class's inline `deadLetter(ctx, dead)` method, registered as the workflow `<name>.dlq`
 * (same version) and named as its dead-letter workflow; null when it has none. Declaring it
 * beside `static workflow = { deadLetterWorkflow }` is refused: one of them would be ignored.
 */
function registerDeadLetter(
  engine: Engine,
  app: ApplicationService,
  entry: DiscoveredWorkflow,
): string | null {
  const { workflow, name, version } = entry
  const workflowClass = workflow as unknown as RunnableWorkflow
  if (typeof workflowClass.prototype.deadLetter !== 'function') return null
  if ((workflow.workflow as { deadLetterWorkflow?: unknown }).deadLetterWorkflow !== undefined)
    throw new InvalidArgumentError(
      `workflow "${name}" declares both a deadLetter method and static workflow.deadLetterWorkflow: keep one`,
      { details: { workflow: name } },
    )
  const dlq = `${name}.dlq`
  engine.register(dlq, version, async (ctx, dead: DeadLetter) => {
    const instance = await app.container.make(workflowClass)
    return instance.deadLetter?.(ctx, dead)
  })
  return dlq
}
