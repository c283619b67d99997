/**
 * Registered workflow implementations, by name and version. A run executes only the version
 * it started on (I20); `start` uses the newest registered version unless told otherwise.
 */
import type { WorkflowKey } from '../contracts/records.ts'
import {
  DuplicateWorkflowError,
  InvalidArgumentError,
  WorkflowNotRegisteredError,
} from '../errors/index.ts'
import type { WorkflowBody, WorkflowOptions } from '../execution/types.ts'
import {
  BACKOFF_OPTIONS,
  WORKFLOW_OPTIONS,
  WORKFLOW_RETRY_OPTIONS,
} from '../execution/option_specs.ts'
import { isStandardSchema } from '../search/schema_check.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger, MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { checkSingletonOptions } from './singleton_check.ts'
import { checkEventTriggers } from './event_triggers.ts'
import { checkPriority } from '../store/run_priority.ts'
import { checkQueueName } from '../store/queue_check.ts'

export interface RegisteredWorkflow {
  name: string
  version: string
  body: WorkflowBody<never, unknown>
  options: WorkflowOptions
}

export class WorkflowRegistry {
  private readonly byName = new Map<string, Map<string, RegisteredWorkflow>>()
  private readonly latest = new Map<string, RegisteredWorkflow>()
  private keyList: WorkflowKey[] = []

  add(
    name: string,
    version: string | number,
    body: WorkflowBody<never, unknown>,
    options: WorkflowOptions = {},
  ): RegisteredWorkflow {
    assertIdentifier(name, 'workflow name')
    const v = normalizeVersion(version)
    if (typeof body !== 'function')
      throw new InvalidArgumentError(`workflow "${name}": body must be a function`)
    checkWorkflowOptionKeys(name, options)
    const versions = this.byName.get(name) ?? new Map<string, RegisteredWorkflow>()
    if (versions.has(v))
      throw new DuplicateWorkflowError(`workflow "${name}" version "${v}" is already registered`)
    checkExecutionTimeout(name, options.executionTimeoutMs)
    checkSingletonOptions(name, options.singleton)
    checkEventTriggers(name, options)
    if (options.priority !== undefined) checkPriority(options.priority, `workflow "${name}"`)
    if (options.queue !== undefined) checkQueueName(options.queue, `workflow "${name}"`)
    if (options.deadLetterWorkflow != null)
      assertIdentifier(options.deadLetterWorkflow, `workflow "${name}": deadLetterWorkflow`)
    if (options.searchAttributes !== undefined && !isStandardSchema(options.searchAttributes)) {
      throw new InvalidArgumentError(
        `workflow "${name}": searchAttributes must be a Standard Schema (an object with ~standard.validate)`,
      )
    }
    if (options.inputSchema !== undefined && !isStandardSchema(options.inputSchema)) {
      throw new InvalidArgumentError(
        `workflow "${name}": inputSchema must be a Standard Schema (an object with ~standard.validate: VineJS, Zod, Valibot, ArkType, …)`,
      )
    }
    const entry: RegisteredWorkflow = { name, version: v, body, options }
    versions.set(v, entry)
    this.byName.set(name, versions)
    this.latest.set(name, newest([...versions.values()]))
    this.keyList = [...this.keyList, { workflow: name, version: v }]
    return entry
  }

  /** The newest registered version of `name`, or undefined. */
  newest(name: string): RegisteredWorkflow | undefined {
    return this.latest.get(name)
  }

  /** The exact version, or undefined. */
  find(name: string, version: string): RegisteredWorkflow | undefined {
    return this.byName.get(name)?.get(version)
  }

  /** The version `start` should use; throws E_WORKFLOW_NOT_REGISTERED. */
  resolve(name: string, version?: string | number): RegisteredWorkflow {
    const entry =
      version === undefined ? this.latest.get(name) : this.find(name, normalizeVersion(version))
    if (entry !== undefined) return entry
    const known = [...(this.byName.get(name)?.keys() ?? [])]
    const detail = known.length > 0 ? ` (registered versions: ${known.join(', ')})` : ''
    const what =
      version === undefined
        ? `workflow "${name}"`
        : `workflow "${name}" version "${String(version)}"`
    throw new WorkflowNotRegisteredError(`${what} is not registered${detail}`, {
      details: { workflow: name, version },
    })
  }

  /** Every registered (workflow, version): what this engine may claim. */
  keys(): readonly WorkflowKey[] {
    return this.keyList
  }

  /** The newest registered version of every workflow. */
  newestOfEach(): RegisteredWorkflow[] {
    return [...this.latest.values()]
  }
}

export function normalizeVersion(version: string | number): string {
  if (typeof version === 'number' && !(Number.isFinite(version) && version >= 0))
    throw new InvalidArgumentError(
      `workflow version must be a string or a finite number >= 0, got ${String(version)}`,
    )
  const text = typeof version === 'number' ? String(version) : version
  assertIdentifier(text, 'workflow version')
  return text
}

// Newest = highest version, comparing numerically where both look like numbers.
function newest(entries: RegisteredWorkflow[]): RegisteredWorkflow {
  return entries.reduce((a, b) => (compareVersions(a.version, b.version) >= 0 ? a : b))
}

function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}

/** Unknown keys, here and in `retry` and its `backoff`, are refused before anything is kept. */
function checkWorkflowOptionKeys(name: string, options: WorkflowOptions): void {
  const where = `workflow "${name}"`
  const details = { workflow: name }
  checkOptionKeys(options, WORKFLOW_OPTIONS, where, details)
  checkOptionKeys(options.retry, WORKFLOW_RETRY_OPTIONS, `${where} retry`, details)
  checkOptionKeys(options.retry?.backoff, BACKOFF_OPTIONS, `${where} retry.backoff`, details)
}

// Half the Date range: a run created at any time a clock can show gets a deadline a Date holds.
function checkExecutionTimeout(name: string, timeoutMs: unknown): void {
  if (timeoutMs === undefined) return
  checkInteger(timeoutMs, `workflow "${name}": executionTimeoutMs`, {
    min: 1,
    max: MAX_TIME_MS / 2,
  })
}
