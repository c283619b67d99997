/**
 * Finds the workflow classes of an app: every module of the workflows directory (see
 * app_modules.ts) whose default export extends BaseWorkflow. Two classes declaring the same
 * workflow name and version fail boot, naming both files.
 */
import { InvalidArgumentError } from '@cairn/core'
import { scanModules, type AppModule, type Importer } from './app_modules.ts'
import { BaseWorkflow, workflowDefinition, type WorkflowClass } from './base_workflow.ts'

export interface DiscoveredWorkflow {
  /** Path of the module, relative to the app root. */
  file: string
  workflow: WorkflowClass
  name: string
  version: string | number
}

/**
 * Imports every module under `dir` (absolute). A missing directory is no workflows. A module
 * without a BaseWorkflow default export is skipped (helpers may live next to workflows).
 */
export async function discoverWorkflows(
  dir: string,
  appRoot: string,
  importer?: Importer,
): Promise<DiscoveredWorkflow[]> {
  return workflowsIn(await scanModules(dir, appRoot, importer))
}

/** The workflow classes among `modules`, checked for duplicates. */
export async function workflowsIn(modules: readonly AppModule[]): Promise<DiscoveredWorkflow[]> {
  const found: DiscoveredWorkflow[] = []
  const seen = new Map<string, DiscoveredWorkflow>()
  for (const { file, load } of modules) {
    const mod = (await load()) as { default?: unknown }
    const candidate = mod.default
    if (typeof candidate !== 'function' || !(candidate.prototype instanceof BaseWorkflow)) continue
    const workflow = candidate as WorkflowClass
    const { name, version } = workflowDefinition(workflow, file)
    const key = `${name}\u0000${String(version)}`
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      throw new InvalidArgumentError(
        `Workflow "${name}" version ${String(version)} is declared twice: in ${earlier.file} and in ${file}`,
        { details: { workflow: name, version, files: [earlier.file, file] } },
      )
    }
    const entry = { file, workflow, name, version }
    seen.set(key, entry)
    found.push(entry)
  }
  return found
}
