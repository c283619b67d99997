/**
 * `ctx.upsertSearchAttributes(attributes)`: set (a value) or remove (null) indexed attributes
 * of this run, for `listRuns({ searchAttributes })` and operators. Recorded at its position
 * like any primitive; the store writes the attributes in the transaction of that checkpoint,
 * only if it applies, so a replay never writes them again and a crash never leaves attributes
 * without their checkpoint.
 *
 * Bad names or values throw E_INVALID_ARGUMENT at the call, before a position is taken:
 * nothing is recorded. The workflow's schema (`searchAttributes` option), when it answers
 * synchronously, does the same. An asynchronous schema answers after the position was taken
 * (positions are taken at call time, so replay numbers them the same): its rejection is then
 * recorded as the position's failure, without attributes, and replays as the same error. A
 * recorded position is never checked against the schema again: a replay does what the first
 * execution did.
 */
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import { checkUpsert } from '../search/attribute_values.ts'
import { checkWithSchema } from '../search/schema_check.ts'
import { encodeError } from './outcome.ts'
import type { StepRecordInput, TurnRuntime } from './runtime.ts'

const NAME = 'search_attributes'

export function upsertSearchAttributes(rt: TurnRuntime, attributes: unknown): Promise<void> {
  const upsert = checkUpsert(attributes, 'upsertSearchAttributes')
  const replaying = rt.recordAt(rt.peekSeq())?.kind === 'search_attrs'
  const verdict = replaying ? null : checkWithSchema(rt.searchAttributeSchema, upsert)
  if (verdict instanceof Error) throw verdict
  // Recorded with the checkpoint for the timeline (engine.getSteps); throws E_PAYLOAD_TOO_LARGE
  // here if the run's codec has a tiny limit, before a position is taken.
  const output = rt.codec.encode(upsert, 'search attributes')
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, NAME, 'search_attrs')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<unknown>(seq).then(() => undefined)
  if (record !== undefined) return outcome
  const step = {
    seq,
    name: NAME,
    kind: 'search_attrs' as const,
    attempts: 1,
    startedAt: rt.clock.now(),
  }
  if (verdict === null) rt.complete(step, { ok: true, output }, undefined, upsert)
  else void recordWhenChecked(rt, step, verdict, upsert, output)
  return outcome
}

async function recordWhenChecked(
  rt: TurnRuntime,
  step: StepRecordInput,
  verdict: Promise<Error | null>,
  upsert: SearchAttributeUpsert,
  output: string,
): Promise<void> {
  rt.beginWork()
  try {
    // A schema whose promise rejects rejects the call too (with what it threw, as an Error).
    const rejection = await verdict.catch((error: unknown) =>
      error instanceof Error
        ? error
        : new Error(`search attribute schema failed: ${String(error)}`),
    )
    if (rejection === null) rt.complete(step, { ok: true, output }, undefined, upsert)
    else rt.complete(step, { ok: false, error: encodeError(rejection, rt.codec) })
  } finally {
    rt.endWork()
  }
}
