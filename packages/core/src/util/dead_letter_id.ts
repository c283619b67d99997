/**
 * A dead letter's run id (docs/dead-letters.md): `dlq:<runId>`, or `dlq:<sha256 of runId>`
 * when that would pass the 255 characters of a run id. Derived, so whoever holds a run id —
 * the engine ending it, a store deleting it — finds its letter without a lookup table.
 */
import { createHash } from 'node:crypto'
import { MAX_ID_LENGTH } from './validate.ts'

const PREFIX = 'dlq:'

export function deadLetterRunId(runId: string): string {
  const id = `${PREFIX}${runId}`
  if (id.length <= MAX_ID_LENGTH) return id
  return `${PREFIX}${createHash('sha256').update(runId).digest('hex')}`
}

/** Whether `runId` is a dead letter's (the `dlq:` prefix is Cairn's). */
export function isDeadLetterRunId(runId: string): boolean {
  return runId.startsWith(PREFIX)
}
