/**
 * Where a retention policy's expired runs end (exclusive), in finish order: the later of its
 * age bound (`now - maxAge`) and its count bound (the oldest of the `maxCount` newest runs of
 * its scope) — a run goes once past either. Null: nothing expires now.
 */
import type { FinishedPosition } from '../contracts/retention.ts'
import type { StateStore } from '../contracts/state_store.ts'
import { compareFinished } from '../store/retention_rules.ts'
import { MAX_TIME_MS } from '../util/numbers.ts'
import type { ResolvedRetentionPolicy } from './retention_policy.ts'

/** Past every run: a policy keeping 0 runs lets all of them go. */
const EVERYTHING: FinishedPosition = { finishedAt: MAX_TIME_MS, runId: '' }

export async function expiryBound(
  store: StateStore,
  policy: ResolvedRetentionPolicy,
  now: number,
): Promise<FinishedPosition | null> {
  const bounds: FinishedPosition[] = []
  if (policy.maxAgeMs !== null && now - policy.maxAgeMs > 0)
    bounds.push({ finishedAt: now - policy.maxAgeMs, runId: '' })
  if (policy.maxCount === 0) bounds.push(EVERYTHING)
  else if (policy.maxCount !== null) {
    const cutoff = await store.retentionCutoff({
      statuses: policy.statuses,
      keepNewest: policy.maxCount,
      ...(policy.workflow === undefined ? {} : { workflow: policy.workflow }),
    })
    if (cutoff !== null) bounds.push(cutoff)
  }
  return bounds.reduce<FinishedPosition | null>(
    (latest, bound) => (latest === null || compareFinished(bound, latest) > 0 ? bound : latest),
    null,
  )
}
