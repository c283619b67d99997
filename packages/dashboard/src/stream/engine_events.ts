/**
 * The engine's lifecycle event names a stream listens to, read from core's own list (the
 * keys of `channels`), so an event added to the engine reaches the streams too.
 */
import { channels, type EngineEventName } from '@cairn/core'

const ALL_EVENTS = Object.keys(channels) as EngineEventName[]

/** Events about a run as a whole (`run:*`). */
export const RUN_EVENTS: readonly EngineEventName[] = ALL_EVENTS.filter((name) =>
  name.startsWith('run:'),
)

/** Every event: each names the run it is about. */
export const EVERY_EVENT: readonly EngineEventName[] = ALL_EVENTS
