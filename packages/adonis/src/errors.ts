/**
 * Boot-time errors of the AdonisJS binding. Both are E_INVALID_ARGUMENT (`InvalidArgumentError`
 * from @cairn/core), so `InvalidArgumentError.is(err)` and `err.code` work as for the engine.
 */
import { InvalidArgumentError } from '@cairn/core'

/** `config/durable.ts` is invalid: the message names the field. */
export function invalidConfig(
  field: string,
  problem: string,
  cause?: unknown,
): InvalidArgumentError {
  return new InvalidArgumentError(`${PREFIX} "${field}" ${problem}`, {
    details: { field },
    ...(cause === undefined ? {} : { cause }),
  })
}

const PREFIX = 'Invalid config/durable.ts:'

/**
 * An E_INVALID_ARGUMENT raised while building from the config (a store's or the engine's own
 * option check), restated as a config error under `field` (the engine's messages already name
 * the option, which has the same name in the config). Anything else is rethrown as it is.
 */
export function asConfigError(error: unknown, field: string | null): unknown {
  if (!InvalidArgumentError.is(error) || error.message.startsWith(PREFIX)) return error
  if (field === null) {
    return new InvalidArgumentError(`${PREFIX} ${error.message}`, { cause: error })
  }
  return invalidConfig(field, error.message, error)
}
