/**
 * Boot-time errors of the AdonisJS binding. Both are E_INVALID_ARGUMENT (`InvalidArgumentError`
 * from @cairn/core), so `InvalidArgumentError.is(err)` and `err.code` work as for the engine.
 */
import { InvalidArgumentError } from '@cairn/core'

/** `config/durable.ts` is invalid: the message names the field. */
export function invalidConfig(field: string, problem: string): InvalidArgumentError {
  return new InvalidArgumentError(`Invalid config/durable.ts: "${field}" ${problem}`, {
    details: { field },
  })
}
