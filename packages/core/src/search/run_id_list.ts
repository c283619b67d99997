/** The id list of `loadSearchAttributes`: bounded, so one SQL statement always reads it. */
import { InvalidArgumentError } from '../errors/index.ts'

export const MAX_ATTRIBUTE_RUN_IDS = 1000

export function checkRunIdList(runIds: readonly string[]): void {
  if (!Array.isArray(runIds) || runIds.length > MAX_ATTRIBUTE_RUN_IDS) {
    throw new InvalidArgumentError(
      `loadSearchAttributes: runIds must be an array of at most ${MAX_ATTRIBUTE_RUN_IDS} ids`,
      { details: { reason: 'runIds' } },
    )
  }
}
