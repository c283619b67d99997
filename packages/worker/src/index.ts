/**
 * @cairn/worker — a store-less worker for Cairn's remote steps (docs/design/remote_steps.md):
 * it takes tasks from a transport, runs the step handlers you give it, and sends back results.
 * It loads no store and needs no database credentials.
 */
export { createWorker, type Worker } from './create_worker.ts'
export type { WorkerOptions } from './options.ts'
export type { AdaptiveConcurrency } from './adaptive_limit.ts'
export { concurrencyFromText } from './concurrency_text.ts'
export type { RemoteStepContext } from './task_runner.ts'
// The step scope of the handler running now (its logger, progress): shared with @cairn/core.
export { currentStep } from '@cairn/core/wire'
