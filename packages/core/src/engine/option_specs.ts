/**
 * The keys each options object of the Engine's API takes (construction, starting, signalling,
 * waiting, cancelling, copying runs), for checkOptionKeys. Listed with optionNames, so a key
 * added to one of these types must be added here too or tsc fails.
 */
import type { ListWorkersOptions } from './worker_views.ts'
import type { CheckpointPage, ListRunsQuery, RunFacetQuery } from '../contracts/state_store.ts'
import type { StepLogPage } from '../contracts/step_logs.ts'
import {
  FOREIGN_QUEUE_OPTIONS,
  FOREIGN_SIGNAL_WITH_START_SIGNAL,
  FOREIGN_START_OPTIONS,
  FOREIGN_WAIT_FOR_RUN_OPTIONS,
} from '../util/foreign_options.ts'
import { optionNames, type OptionsSpec } from '../util/known_keys.ts'
import type { ContinueOptions } from './breakpoint_continuer.ts'
import type { CancelOptions, SingletonKeysQuery, WaitOptions } from './engine.ts'
import type { GetEventOptions } from './event_reader.ts'
import type { PublishEventOptions } from './event_publisher.ts'
import type { EngineOptions } from './options.ts'
import type { QueueOptions } from './queue_registry.ts'
import type { ForkOptions, RetryWithInputOptions } from './run_copier.ts'
import type { StartOptions } from './run_starter.ts'
import type { SignalOptions } from './signal_sender.ts'
import type { UpdateCallOptions } from './update_sender.ts'

export const ENGINE_OPTIONS: OptionsSpec = {
  call: 'new Engine',
  known: optionNames<EngineOptions>({
    store: true,
    codec: true,
    clock: true,
    logger: true,
    instanceId: true,
    concurrency: true,
    leaseMs: true,
    pollIntervalMs: true,
    holdTimersUpToMs: true,
    parkUnrunnableAfterMs: true,
    maxRecoveryAttempts: true,
    maxCachedRuns: true,
    deadLetterWorkflow: true,
    schedules: true,
    retention: true,
    stepLogs: true,
    maxBatch: true,
    webhookUrl: true,
    eventRetentionMs: true,
    transports: true,
    queues: true,
  }),
}

export const QUEUE_OPTIONS: OptionsSpec = {
  call: 'engine.registerQueue',
  known: optionNames<QueueOptions>({
    concurrency: true,
    rateLimit: true,
    fairness: true,
    slotLeases: true,
  }),
  foreign: FOREIGN_QUEUE_OPTIONS,
}

export const START_OPTIONS: OptionsSpec = {
  call: 'engine.start',
  known: optionNames<StartOptions>({
    runId: true,
    version: true,
    tags: true,
    priority: true,
    queue: true,
  }),
  foreign: FOREIGN_START_OPTIONS,
}

export const WAIT_OPTIONS: OptionsSpec = {
  call: 'engine.waitForRun',
  known: optionNames<WaitOptions>({ timeoutMs: true }),
  foreign: FOREIGN_WAIT_FOR_RUN_OPTIONS,
}

export const CANCEL_OPTIONS: OptionsSpec = {
  call: 'engine.cancel',
  known: optionNames<CancelOptions>({ reason: true, compensate: true }),
}

export const SIGNAL_OPTIONS: OptionsSpec = {
  call: 'engine.signal',
  known: optionNames<SignalOptions>({ signalId: true }),
}

/** `engine.signalWithStart(name, input, options, signal)`: the signal it sends. */
export const SIGNAL_WITH_START_SIGNAL: OptionsSpec = {
  call: 'engine.signalWithStart signal',
  known: optionNames<{ name: string; payload?: unknown; signalId?: string }>({
    name: true,
    payload: true,
    signalId: true,
  }),
  foreign: FOREIGN_SIGNAL_WITH_START_SIGNAL,
}

export const PUBLISH_EVENT_OPTIONS: OptionsSpec = {
  call: 'engine.publishEvent',
  known: optionNames<PublishEventOptions>({ eventId: true }),
}

export const CONTINUE_OPTIONS: OptionsSpec = {
  call: 'engine.continue',
  known: optionNames<ContinueOptions>({ label: true, note: true }),
}

export const GET_EVENT_OPTIONS: OptionsSpec = {
  call: 'engine.getEvent',
  known: optionNames<GetEventOptions>({ timeoutMs: true }),
}

export const UPDATE_OPTIONS: OptionsSpec = {
  call: 'engine.update',
  known: optionNames<UpdateCallOptions>({ updateId: true, timeoutMs: true }),
}

export const RETRY_WITH_INPUT_OPTIONS: OptionsSpec = {
  call: 'engine.retryWithInput',
  known: optionNames<RetryWithInputOptions>({ runId: true }),
}

export const FORK_OPTIONS: OptionsSpec = {
  call: 'engine.fork',
  known: optionNames<ForkOptions>({ fromSeq: true, input: true, runId: true }),
}

const FACET_QUERY_NAMES = optionNames<RunFacetQuery>({
  workflow: true,
  parentRunId: true,
  status: true,
  searchAttributes: true,
  version: true,
  createdFrom: true,
  createdBefore: true,
  claimableBefore: true,
  idContains: true,
  tag: true,
  originRunId: true,
  admissionKey: true,
})

/** A filter nobody reads would list every run as if it matched: refused by name instead. */
export const LIST_RUNS_QUERY: OptionsSpec = {
  call: 'engine.listRuns',
  known: new Set([
    ...FACET_QUERY_NAMES,
    ...optionNames<Pick<ListRunsQuery, 'limit' | 'cursor' | 'order'>>({
      limit: true,
      cursor: true,
      order: true,
    }),
  ]),
}

export const FACET_RUNS_QUERY: OptionsSpec = {
  call: 'engine.facetRuns',
  known: FACET_QUERY_NAMES,
}

export const SINGLETON_KEYS_QUERY: OptionsSpec = {
  call: 'engine.singletonKeys',
  known: optionNames<SingletonKeysQuery>({ workflow: true, limit: true, cursor: true }),
}

export const STEPS_PAGE: OptionsSpec = {
  call: 'engine.getStepsPage',
  known: optionNames<CheckpointPage>({ fromSeq: true, limit: true }),
}

export const STEP_LOGS_PAGE: OptionsSpec = {
  call: 'engine.getStepLogs',
  known: optionNames<StepLogPage>({ fromSeq: true, limit: true, updatedFrom: true }),
}

export const LIST_WORKERS_OPTIONS: OptionsSpec = {
  call: 'engine.listWorkers',
  known: optionNames<ListWorkersOptions>({ seenWithinMs: true }),
}
