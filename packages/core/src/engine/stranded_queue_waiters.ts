/**
 * The safety net of named queues: waiters beside a free slot nobody granted. Every outcome
 * and end the engine writes names its queue, so the next waiter is granted in that write; a
 * slot freed otherwise — a run ended by a direct store call or an engine of an earlier
 * version, a concurrency raised by a deploy — is granted by this sweep (with the park sweep),
 * each queue under its lock by the rule every store applies (StateStore.grantQueueSlots).
 */
import { MAX_QUEUES_PER_CALL } from '../store/queue_check.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** Items granted, over the queues this engine registered. */
export async function grantStrandedQueues(
  options: ResolvedEngineOptions,
  names: readonly string[],
): Promise<number> {
  const { store, clock } = options
  let granted = 0
  for (let i = 0; i < names.length; i += MAX_QUEUES_PER_CALL)
    granted += await store.grantQueueSlots(names.slice(i, i + MAX_QUEUES_PER_CALL), clock.now())
  return granted
}
