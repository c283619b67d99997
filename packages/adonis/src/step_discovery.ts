/**
 * Finds the steps of an app: every module of the steps directory (see app_modules.ts) whose
 * default export is a BaseStep class or a `defineStep(…)` reference. Two modules declaring the
 * same step name fail boot, naming both files. Other modules (helpers) are skipped.
 */
import { InvalidArgumentError, isStepReference, type StepReference } from '@cairn/core'
import { scanModules, type AppModule, type Importer } from './app_modules.ts'
import { BaseStep, stepDeclaration, type StepClass } from './base_step.ts'

export type DiscoveredStep = {
  /** Path of the module, relative to the app root. */
  file: string
  name: string
} & ({ kind: 'class'; step: StepClass } | { kind: 'function'; step: StepReference })

/** Imports every module under `dir` (absolute); a missing directory is no steps. */
export async function discoverSteps(
  dir: string,
  appRoot: string,
  importer?: Importer,
): Promise<DiscoveredStep[]> {
  return stepsIn(await scanModules(dir, appRoot, importer))
}

/** The steps among `modules`, checked for duplicate names. */
export async function stepsIn(modules: readonly AppModule[]): Promise<DiscoveredStep[]> {
  const found: DiscoveredStep[] = []
  const seen = new Map<string, DiscoveredStep>()
  for (const { file, load } of modules) {
    const entry = asStep(((await load()) as { default?: unknown }).default, file)
    if (entry === null) continue
    const earlier = seen.get(entry.name)
    if (earlier !== undefined) {
      throw new InvalidArgumentError(
        `Step "${entry.name}" is declared twice: in ${earlier.file} and in ${file}`,
        { details: { step: entry.name, files: [earlier.file, file] } },
      )
    }
    seen.set(entry.name, entry)
    found.push(entry)
  }
  return found
}

function asStep(candidate: unknown, file: string): DiscoveredStep | null {
  if (typeof candidate === 'function' && candidate.prototype instanceof BaseStep) {
    const step = candidate as StepClass
    return { file, kind: 'class', step, name: stepDeclaration(step, file).name }
  }
  if (isStepReference(candidate))
    return { file, kind: 'function', step: candidate as StepReference, name: candidate.name }
  return null
}
