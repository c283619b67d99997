/**
 * Event-triggered starts (`register(…, { onEvent })`, `static workflow = { onEvent }`): a
 * workflow declares the broadcast events that start a run of it, and `engine.publishEvent`
 * starts one per matching event — the run's input is the event's payload.
 *
 * Exactly once per event id and workflow: the run's id is derived from them
 * (`evt:<eventId>:<workflow>`, or the trigger's own `runId(payload)`), and a run id is created
 * once by the store, so a publish retried with its event id (after a crash, on another
 * engine) starts nothing twice. A `runId` function makes it once per derived id: events that
 * map to one id share one run.
 *
 * The publishing engine's registrations decide which workflows an event starts (an engine
 * started nothing for a workflow it does not register); the newest registered version's
 * triggers count, and the run starts on that version, as `engine.start` does.
 */
import { createHash } from 'node:crypto'
import { InvalidArgumentError } from '../errors/index.ts'
import { encodeEventMatch, eventMatches } from '../execution/event_match.ts'
import type { EventBatchAdd } from '../contracts/event_batches.ts'
import type { EventTrigger, WorkflowOptions } from '../execution/types.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { assertIdentifier, MAX_ID_LENGTH } from '../util/validate.ts'
import { batchAdd, checkBatchSpec, type CheckedBatch } from './event_batch_spec.ts'
import type { RegisteredWorkflow } from './registry.ts'

/** A trigger as checked at registration. */
interface CheckedTrigger {
  name: string
  matches(payload: unknown): boolean
  runId: ((payload: unknown) => string) | null
  /** Its events gather into one run per window (its own `batch`, else the workflow's). */
  batch: CheckedBatch | null
}

const MAX_TRIGGERS = 32

const TRIGGER_OPTIONS: OptionsSpec = {
  call: 'onEvent',
  known: optionNames<Exclude<EventTrigger, string>>({
    name: true,
    match: true,
    runId: true,
    batch: true,
  }),
}

/** A workflow's options as far as its triggers go. */
type TriggerOptions = Pick<WorkflowOptions, 'onEvent' | 'eventBatch'>

/** Checked triggers by the options registered (checked once, at registration). */
const checked = new WeakMap<object, CheckedTrigger[]>()

/**
 * Checks a workflow's `onEvent` and `eventBatch` at registration; throws E_INVALID_ARGUMENT
 * naming the entry.
 */
export function checkEventTriggers(workflow: string, options: TriggerOptions): void {
  triggersOf(workflow, options)
}

function triggersOf(workflow: string, options: TriggerOptions): CheckedTrigger[] {
  const { onEvent, eventBatch } = options
  if (onEvent === undefined) {
    if (eventBatch !== undefined)
      throw new InvalidArgumentError(
        `workflow "${workflow}": eventBatch gathers the events its onEvent names, and it has no onEvent`,
        { details: { workflow, option: 'eventBatch' } },
      )
    return []
  }
  if (!Array.isArray(onEvent) || onEvent.length > MAX_TRIGGERS)
    throw new InvalidArgumentError(
      `workflow "${workflow}": onEvent is an array of at most ${MAX_TRIGGERS} event names or { name, match?, runId?, batch? }`,
      { details: { workflow, option: 'onEvent' } },
    )
  const known = checked.get(options)
  if (known !== undefined) return known
  const shared =
    eventBatch === undefined
      ? null
      : checkBatchSpec(eventBatch, `workflow "${workflow}" eventBatch`)
  // Array.from: a hole (`['a', , 'b']`) is an entry like any other (undefined), refused here.
  const triggers = Array.from(onEvent as unknown[]).map((entry, i) =>
    checkTrigger(entry, `workflow "${workflow}" onEvent[${i}]`, { workflow, index: i }, shared),
  )
  checked.set(options, triggers)
  return triggers
}

function checkTrigger(
  entry: unknown,
  where: string,
  details: Record<string, unknown>,
  shared: CheckedBatch | null,
): CheckedTrigger {
  const refuse = (message: string) =>
    new InvalidArgumentError(`${where}: ${message}`, { details: { ...details, option: 'onEvent' } })
  const named = (name: unknown): string => {
    try {
      checkSignalName(name, 'the event name')
      return name
    } catch (error) {
      throw refuse((error as Error).message)
    }
  }
  if (typeof entry === 'string')
    return { name: named(entry), matches: () => true, runId: null, batch: shared }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw refuse('an entry is an event name or { name, match?, runId?, batch? }')
  checkOptionKeys(entry, TRIGGER_OPTIONS, where, details)
  const { name, match, runId, batch } = entry as Exclude<EventTrigger, string>
  if (runId !== undefined && typeof runId !== 'function')
    throw refuse('runId is a function of the payload returning the run id')
  try {
    const own = batch === undefined ? shared : checkBatchSpec(batch, `${where}`)
    if (own !== null && runId !== undefined)
      throw refuse(
        "runId and a batch do not go together: a batch's run takes its id from its window (use batch.key to keep windows apart)",
      )
    return { name: named(name), matches: matcher(match), runId: runId ?? null, batch: own }
  } catch (error) {
    if (error instanceof InvalidArgumentError && error.message.startsWith(where)) throw error
    throw refuse((error as Error).message)
  }
}

function matcher(match: unknown): (payload: unknown) => boolean {
  if (typeof match === 'function') return (payload) => match(payload) === true
  const stored = encodeEventMatch(match, 'match')
  return (payload) => eventMatches(stored, payload)
}

/** A run an event is to start: its workflow (newest version) and the id it gets. */
export interface TriggeredStart {
  workflow: string
  /** Null when the trigger's match, runId or batch key failed: `error` says why. */
  runId: string | null
  error?: unknown
}

/** What an event's triggers come to: runs to start now, and accumulators to add it to. */
export interface TriggerPlan {
  starts: TriggeredStart[]
  /** At most one per workflow and key (the first trigger naming it). */
  adds: EventBatchAdd[]
}

/**
 * What the event `name` (id `eventId`) triggers among `workflows` (each workflow's newest
 * registered version): one start per workflow and run id, one accumulator add per workflow and
 * batch key; `payload()` decodes a fresh copy of the payload for each trigger (a match
 * function cannot change what another sees). A `match`, `runId` or batch `key` that throws,
 * or gives a malformed id or key, is that trigger's error (a start with no run id); the
 * others go on.
 */
export function planTriggers(
  workflows: readonly RegisteredWorkflow[],
  name: string,
  eventId: string,
  payload: () => unknown,
): TriggerPlan {
  const starts = new Map<string, TriggeredStart>()
  const adds = new Map<string, EventBatchAdd>()
  for (const workflow of workflows) {
    for (const trigger of triggersOf(workflow.name, workflow.options)) {
      if (trigger.name !== name) continue
      const planned = planOf(workflow.name, trigger, eventId, payload)
      if (planned === null) continue
      if ('openId' in planned) {
        const slot = JSON.stringify([planned.workflow, planned.key])
        if (!adds.has(slot)) adds.set(slot, planned)
        continue
      }
      const id = planned.runId ?? `failed trigger ${starts.size}`
      starts.set(JSON.stringify([planned.workflow, id]), planned)
    }
  }
  return { starts: [...starts.values()], adds: [...adds.values()] }
}

function planOf(
  workflow: string,
  trigger: CheckedTrigger,
  eventId: string,
  payload: () => unknown,
): TriggeredStart | EventBatchAdd | null {
  try {
    if (!trigger.matches(payload())) return null
    if (trigger.batch !== null) return batchAdd(workflow, trigger.batch, payload)
    const runId =
      trigger.runId === null ? defaultRunId(workflow, eventId) : trigger.runId(payload())
    assertIdentifier(runId, `the run id onEvent gave for workflow "${workflow}"`)
    return { workflow, runId }
  } catch (error) {
    return { workflow, runId: null, error }
  }
}

/**
 * `evt:<workflow>:<eventId>`, the workflow's `\` and `:` escaped so that no two (workflow,
 * event id) pairs give one id; past the 255 characters of a run id, `evt~<sha-256 of both>`
 * (a prefix the readable form never has).
 */
export function defaultRunId(workflow: string, eventId: string): string {
  const readable = `evt:${workflow.replaceAll('\\', '\\\\').replaceAll(':', '\\:')}:${eventId}`
  if (readable.length <= MAX_ID_LENGTH) return readable
  const digest = createHash('sha256')
    .update(JSON.stringify([workflow, eventId]))
    .digest('hex')
  return `evt~${digest}`
}
