/**
 * How a child's outcome travels to its parent: the message a finishing (or cancelled) child
 * puts in its parent's inbox, and how the parent turns it back into a value or an error.
 * Addressed to the parent's waiting position under a Cairn name, deduplicated by the child's
 * run id, so a child's outcome reaches its parent once.
 */
import type { Codec } from '../contracts/codec.ts'
import type { MessageToDeliver, TerminalStatus } from '../contracts/index.ts'
import { ChildFailedError } from '../errors/index.ts'
import { decodeError } from './outcome.ts'
import { RESERVED_PREFIX } from './wait_names.ts'

export interface ChildOutcome {
  status: TerminalStatus
  /** Codec text of the output / SerializedError, as the child recorded them. */
  output: string | null
  error: string | null
}

export function childSignalName(parentSeq: number): string {
  return `${RESERVED_PREFIX}child:${parentSeq}`
}

export function childOutcomeMessage(
  child: { runId: string; workflow: string },
  parent: { runId: string; seq: number },
  outcome: ChildOutcome,
  codec: Codec,
): MessageToDeliver {
  return {
    runId: parent.runId,
    kind: 'signal',
    name: childSignalName(parent.seq),
    dedupeId: `${RESERVED_PREFIX}child:${child.runId}`,
    payload: codec.encode({ ...outcome, childRunId: child.runId, workflow: child.workflow }),
  }
}

/** The parent's view: the child's output, or a ChildFailedError carrying the child's error. */
export function readChildOutcome(
  payload: string,
  codec: Codec,
): { ok: true; output: string | null } | { ok: false; error: ChildFailedError } {
  const o = codec.decode(payload) as ChildOutcome & { childRunId: string; workflow: string }
  if (o.status === 'completed') return { ok: true, output: o.output }
  const cause = decodeError(o.error, codec)
  const error = new ChildFailedError(
    `child run "${o.childRunId}" (workflow "${o.workflow}") ${o.status === 'cancelled' ? 'was cancelled' : o.status === 'dead' ? 'ended dead' : 'failed'}: ${cause.message}`,
    { cause, details: { childRunId: o.childRunId, workflow: o.workflow, status: o.status } },
  )
  return { ok: false, error }
}
