/**
 * The engine's lifecycle event names a stream listens to, read from core's own list (the
 * keys of `channels`), so an event added to the engine reaches the streams too.
 */
import { channels, type EngineEventName } from '@cairn/core'

/** Events about one run (each names it): all but the schedules' and retention's own. */
export type RunScopedEvent = Exclude<EngineEventName, `schedule:${string}` | `retention:${string}`>

const ALL_EVENTS = Object.keys(channels) as EngineEventName[]

const isRunScoped = (name: EngineEventName): name is RunScopedEvent =>
  !name.startsWith('schedule:') && !name.startsWith('retention:')

/** Events about a run as a whole (`run:*`). */
export const RUN_EVENTS: readonly RunScopedEvent[] = ALL_EVENTS.filter(isRunScoped).filter((name) =>
  name.startsWith('run:'),
)

/** Every event about a run: each names the run it is about. */
export const EVERY_EVENT: readonly RunScopedEvent[] = ALL_EVENTS.filter(isRunScoped)
