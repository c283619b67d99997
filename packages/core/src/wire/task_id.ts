/**
 * A task's id: one attempt of one position, `<runId in base64url>.<seq>.<attempt>`. The same on
 * every redelivery of the attempt, so transports deduplicate by it and a step's
 * `stepCtx.idempotencyKey` can be it. base64url keeps any run id (the engine allows any printable
 * characters) within the characters every broker takes in a job id.
 */
export interface TaskAddress {
  runId: string
  seq: number
  attempt: number
}

export function taskIdOf({ runId, seq, attempt }: TaskAddress): string {
  return `${Buffer.from(runId, 'utf8').toString('base64url')}.${seq}.${attempt}`
}

const SHAPE = /^([A-Za-z0-9_-]+)\.(0|[1-9][0-9]{0,15})\.([1-9][0-9]{0,9})$/

/** The address a task id names, or null when it is not one `taskIdOf` makes. */
export function parseTaskId(taskId: string): TaskAddress | null {
  const match = SHAPE.exec(taskId)
  if (match === null) return null
  const runId = Buffer.from(match[1] as string, 'base64url').toString('utf8')
  const address = { runId, seq: Number(match[2]), attempt: Number(match[3]) }
  // Round trip: a non-canonical encoding (padding bits, bad UTF-8) is not an id we made.
  return taskIdOf(address) === taskId ? address : null
}
