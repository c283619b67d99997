/**
 * Finds the workflow classes of an app: every module under the workflows directory
 * (recursively) whose default export extends BaseWorkflow. Two classes declaring the same
 * workflow name and version fail boot, naming both files.
 */
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { InvalidArgumentError } from '@cairn/core'
import { BaseWorkflow, workflowDefinition, type WorkflowClass } from './base_workflow.ts'

export interface DiscoveredWorkflow {
  /** Path of the module, relative to the app root. */
  file: string
  workflow: WorkflowClass
  name: string
  version: string | number
}

const MODULE = /\.(ts|js|mts|mjs)$/
const DECLARATION = /\.d\.(ts|mts)$/

/**
 * Imports every module under `dir` (absolute). A missing directory is no workflows. A module
 * without a BaseWorkflow default export is skipped (helpers may live next to workflows).
 */
export async function discoverWorkflows(
  dir: string,
  appRoot: string,
  importer: (url: string) => Promise<unknown> = (url) => import(url),
): Promise<DiscoveredWorkflow[]> {
  const files = await listModules(dir)
  const found: DiscoveredWorkflow[] = []
  const seen = new Map<string, DiscoveredWorkflow>()
  for (const path of files) {
    const mod = (await importer(pathToFileURL(path).href)) as { default?: unknown }
    const candidate = mod.default
    if (typeof candidate !== 'function' || !(candidate.prototype instanceof BaseWorkflow)) continue
    const workflow = candidate as WorkflowClass
    const file = relative(appRoot, path)
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

async function listModules(dir: string): Promise<string[]> {
  let entries
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return entries
    .filter((e) => e.isFile() && MODULE.test(e.name) && !DECLARATION.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort()
}
