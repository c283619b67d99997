/**
 * CheckpointRecord.worker in SQL (migration 11): one nullable TEXT column holding the JSON
 * `{"id","startedAt","finishedAt"}`. Read back field by field; a value that is not that shape
 * (written by hand, or by a later version with more) reads as what can be read, or null.
 */
import type { StepWorker } from '@cairn/core/contracts'

export function workerText(worker: StepWorker | null): string | null {
  if (worker === null) return null
  return JSON.stringify({
    id: worker.id,
    startedAt: worker.startedAt,
    finishedAt: worker.finishedAt,
  })
}

export function toStepWorker(text: unknown): StepWorker | null {
  if (typeof text !== 'string') return null
  try {
    const value = JSON.parse(text) as Partial<StepWorker> | null
    if (value === null || typeof value !== 'object') return null
    const { id, startedAt, finishedAt } = value
    if (
      typeof id !== 'string' ||
      !Number.isSafeInteger(startedAt) ||
      !Number.isSafeInteger(finishedAt)
    )
      return null
    return { id, startedAt: startedAt as number, finishedAt: finishedAt as number }
  } catch {
    return null
  }
}
