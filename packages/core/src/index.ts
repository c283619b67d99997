/**
 * @cairn/core — durable workflows for TypeScript.
 *
 * A workflow is plain async code that receives a `ctx`. Every `ctx` primitive (local step,
 * sleep, side effect, patch marker, signal wait) takes a position when called and checkpoints its outcome
 * in a StateStore before the workflow sees it. After a crash, deploy or restart, the run is
 * replayed: recorded outcomes are returned in their original order without running anything
 * again, and execution continues from the first position with no record.
 *
 * Start with `Engine` (engine/engine.ts). Stores implement `StateStore`
 * (contracts/state_store.ts); the memory store here is the reference, `@cairn/sql` has
 * SQLite. `@cairn/core/testing` has a fake clock and a test engine; what only store and
 * integration authors need is in `@cairn/core/store-kit` (store_kit.ts).
 */
export {
  Engine,
  type WaitOptions,
  type CancelOptions,
  type RunList,
  type DrainResult,
  type SingletonKeysQuery,
} from './engine/engine.ts'
export type { EngineOptions, ResolvedEngineOptions } from './engine/options.ts'
export type { WorkerInfo, ListWorkersOptions, TaskQueueDepth } from './engine/worker_views.ts'
export type { StartOptions, StartedRun } from './engine/run_starter.ts'
export { checkQueues, type QueueOptions } from './engine/queue_registry.ts'
export type { QueueFairness } from './engine/queue_fairness.ts'
export type { ForkOptions, RetryWithInputOptions } from './engine/run_copier.ts'
export type { DeadLetter } from './engine/dead_letters.ts'
export type {
  DeclaredSchedule,
  OverlapPolicy,
  ScheduleFiring,
  ScheduleSpec,
} from './engine/schedule_spec.ts'
export type { ScheduleInfo } from './engine/schedule_view.ts'
export { scheduleJson, type ScheduleJson } from './engine/schedule_json.ts'
export { deadLetterRunId } from './engine/dead_letters.ts'
export type { RequeueReceipt } from './engine/requeuer.ts'
export type { PurgeFilter, PurgeReport, PurgeRefusal } from './engine/run_purger.ts'
export type { PolicySweep } from './engine/retention_sweeper.ts'
export {
  resolveRetention,
  type RetentionOptions,
  type RetentionPolicy,
} from './engine/retention_policy.ts'
export type { SignalToken, SignalOptions, SignalReceipt } from './engine/signal_sender.ts'
export type { ContinueOptions } from './engine/breakpoint_continuer.ts'
export type { PublishEventOptions, PublishedEvent } from './engine/event_publisher.ts'
export type { GetEventOptions } from './engine/event_reader.ts'
export { webhookHttpResponse, type WebhookReceipt } from './engine/webhook_receiver.ts'
export type { UpdateCallOptions, UpdateResult } from './engine/update_sender.ts'
export type { RunInfo, StepInfo, StepWorkerInfo, RunOutcome } from './engine/views.ts'
export type { StepPage } from './engine/step_page.ts'
export type { StepLogInfo, StepLogLine, StepProgressInfo } from './engine/step_log_view.ts'
export { resolveStepLogs, type StepLogOptions } from './engine/step_log_options.ts'
export type { RecordedHistory, RecordedRun } from './engine/history_export.ts'
export {
  channels,
  type EngineEvents,
  type EngineEventName,
  type Listener,
} from './engine/events.ts'
export { defaultLogger, silentLogger } from './engine/default_logger.ts'
export type * from './execution/types.ts'
export { defineStep, isStepReference } from './execution/define_step.ts'
export { checkStepSchemas, schemaCheckedHandler, type StepSchemas } from './schema/step_schemas.ts'
export { currentWorkflowContext, currentStep } from './scope/current_context.ts'
export { MemoryStore, RUN_STATUSES, isRunStatus, isTerminalStatus } from './store/index.ts'
export { SystemClock, systemClock } from './clock/system_clock.ts'
export { JsonCodec, createCodec, serializeError, deserializeError } from './codec/index.ts'
export { toMilliseconds, type Duration } from './util/duration.ts'
export * from './errors/index.ts'
export type * from './contracts/index.ts'
