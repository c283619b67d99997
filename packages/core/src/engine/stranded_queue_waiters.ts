/**
 * The safety net of named queues: waiters beside a free slot nobody granted. Every outcome
 * and end the engine writes names its queue, so the next waiter is granted in that write; a
 * slot freed otherwise — a run ended by a direct store call or an engine of an earlier
 * version, a concurrency raised by a deploy — is granted by this sweep (with the park sweep),
 * each queue under its lock by the rule every store applies (StateStore.grantQueueSlots).
 */
import type { QueueGrantReport } from '../contracts/state_store.ts'
import { MAX_QUEUES_PER_CALL } from '../store/queue_check.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** What the store granted over the queues this engine registered, one report per call. */
export async function grantStrandedQueues(
  options: ResolvedEngineOptions,
  names: readonly string[],
): Promise<QueueGrantReport[]> {
  const { store, clock } = options
  const reports: QueueGrantReport[] = []
  for (let i = 0; i < names.length; i += MAX_QUEUES_PER_CALL)
    reports.push(await store.grantQueueSlots(names.slice(i, i + MAX_QUEUES_PER_CALL), clock.now()))
  return reports
}
