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
import type { EventTrigger } from '../execution/types.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { assertIdentifier, MAX_ID_LENGTH } from '../util/validate.ts'
import type { RegisteredWorkflow } from './registry.ts'

/** A trigger as checked at registration. */
interface CheckedTrigger {
  name: string
  matches(payload: unknown): boolean
  runId: ((payload: unknown) => string) | null
}

const MAX_TRIGGERS = 32

const TRIGGER_OPTIONS: OptionsSpec = {
  call: 'onEvent',
  known: optionNames<Exclude<EventTrigger, string>>({ name: true, match: true, runId: true }),
}

/** Checked triggers by the `onEvent` array registered (checked once, at registration). */
const checked = new WeakMap<object, CheckedTrigger[]>()

/** Checks a workflow's `onEvent` at registration; throws E_INVALID_ARGUMENT naming the entry. */
export function checkEventTriggers(workflow: string, onEvent: unknown): void {
  triggersOf(workflow, onEvent)
}

function triggersOf(workflow: string, onEvent: unknown): CheckedTrigger[] {
  if (onEvent === undefined) return []
  if (!Array.isArray(onEvent) || onEvent.length > MAX_TRIGGERS)
    throw new InvalidArgumentError(
      `workflow "${workflow}": onEvent is an array of at most ${MAX_TRIGGERS} event names or { name, match?, runId? }`,
      { details: { workflow, option: 'onEvent' } },
    )
  const known = checked.get(onEvent)
  if (known !== undefined) return known
  // Array.from: a hole (`['a', , 'b']`) is an entry like any other (undefined), refused here.
  const triggers = Array.from(onEvent as unknown[]).map((entry, i) =>
    checkTrigger(entry, `workflow "${workflow}" onEvent[${i}]`, { workflow, index: i }),
  )
  checked.set(onEvent, triggers)
  return triggers
}

function checkTrigger(
  entry: unknown,
  where: string,
  details: Record<string, unknown>,
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
  if (typeof entry === 'string') return { name: named(entry), matches: () => true, runId: null }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw refuse('an entry is an event name or { name, match?, runId? }')
  if (Object.hasOwn(entry, 'batch'))
    throw refuse(
      'batch (debounced or batched starts: one run per window of events) is not in Cairn yet; onEvent starts one run per event',
    )
  checkOptionKeys(entry, TRIGGER_OPTIONS, where, details)
  const { name, match, runId } = entry as Exclude<EventTrigger, string>
  if (runId !== undefined && typeof runId !== 'function')
    throw refuse('runId is a function of the payload returning the run id')
  try {
    return { name: named(name), matches: matcher(match), runId: runId ?? null }
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
  /** Null when the trigger's match or runId failed: `error` says why. */
  runId: string | null
  error?: unknown
}

/**
 * The runs the event `name` (id `eventId`) starts among `workflows` (each workflow's newest
 * registered version), one per workflow and run id; `payload()` decodes a fresh copy of the
 * payload for each trigger (a match function cannot change what another sees). A `match` or
 * `runId` that throws, or a run id that is not an identifier, is that trigger's error; the
 * others go on.
 */
export function triggeredStarts(
  workflows: readonly RegisteredWorkflow[],
  name: string,
  eventId: string,
  payload: () => unknown,
): TriggeredStart[] {
  const starts = new Map<string, TriggeredStart>()
  for (const workflow of workflows) {
    for (const trigger of triggersOf(workflow.name, workflow.options.onEvent)) {
      if (trigger.name !== name) continue
      const start = startOf(workflow.name, trigger, eventId, payload)
      if (start === null) continue
      const id = start.runId ?? `failed trigger ${starts.size}`
      starts.set(JSON.stringify([start.workflow, id]), start)
    }
  }
  return [...starts.values()]
}

function startOf(
  workflow: string,
  trigger: CheckedTrigger,
  eventId: string,
  payload: () => unknown,
): TriggeredStart | null {
  try {
    if (!trigger.matches(payload())) return null
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
