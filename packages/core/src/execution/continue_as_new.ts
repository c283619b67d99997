/**
 * `ctx.continueAsNew(input)`: end this run and start its successor — the same workflow (its
 * newest registered version) on a new input with an empty history — so a run that loops
 * forever keeps its history, and every replay, short. The run ends `continued` with a link to
 * the successor; the successor links back; `waitForRun`, `cancel` and `signal` on an earlier
 * run of the chain reach the latest one, and a parent waiting on the run gets the final
 * result of the chain.
 *
 * The successor's id is derived from this run's id, so every holder of this run that reaches
 * the call (a stale one included) names the same successor: it is created once, whoever
 * creates it. It is created in the same batch as this run's `continued` finish, before it; a
 * successor whose predecessor did not end `continued` to it (the finish was fenced: a cancel
 * won) refuses to run (engine/successor_check.ts).
 */
import { createHash } from 'node:crypto'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_ID_LENGTH, assertIdentifier } from '../util/validate.ts'
import type { TurnRuntime } from './runtime.ts'

const SUFFIX = '~next'

/**
 * A run id given by a caller (engine.start, a childId): any identifier except one ending in
 * the successor suffix, which only continueAsNew hands out — so a successor's id can never be
 * taken by an unrelated run first.
 */
export function assertCallerRunId(id: unknown, what: string): asserts id is string {
  assertIdentifier(id, what)
  if (id.endsWith(SUFFIX)) {
    throw new InvalidArgumentError(
      `${what} must not end with "${SUFFIX}": that suffix names the successors of ctx.continueAsNew`,
      { details: { what } },
    )
  }
}

export function continueAsNew(rt: TurnRuntime, input: unknown): Promise<never> {
  if (!rt.live || rt.stopping) return rt.never()
  let encoded: string
  try {
    encoded = rt.codec.encode(input, `continueAsNew input of workflow "${rt.workflow}"`)
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new InvalidArgumentError(String(error)))
  }
  rt.continueAsNew(encoded)
  return rt.never()
}

/**
 * The successor of `runId`: readable while short (`order-42~next`, `order-42~next~next`), a
 * fixed-length digest once the chain would outgrow an id (the digest names the chain's
 * position as surely: it is a function of the predecessor's id).
 */
export function successorRunId(runId: string): string {
  const id = `${runId}${SUFFIX}`
  if (id.length <= MAX_ID_LENGTH) return id
  return `${createHash('sha256').update(runId).digest('hex')}${SUFFIX}`
}
