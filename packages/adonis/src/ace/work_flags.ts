/**
 * `durable:work` flags that override config/durable.ts for this process. They are checked here,
 * naming the flag, and bound as `durable.overrides` before the app boots: the provider builds
 * the engine from the config with them laid over it, and its own shutdown drains with the same
 * timeout.
 */
import { InvalidArgumentError } from '@cairn/core'
import { checkInteger, NUMBER_RANGES, type IntegerRange } from '@cairn/core/store-kit'
import type { ApplicationService } from '@adonisjs/core/types'
import type { DurableOverrides } from '../types.ts'

export interface WorkFlags {
  concurrency?: number
  instanceId?: string
  drainTimeout?: number
}

export function workOverrides(flags: WorkFlags): DurableOverrides {
  const overrides: DurableOverrides = {}
  if (flags.concurrency !== undefined) {
    overrides.concurrency = flagInteger('concurrency', flags.concurrency, NUMBER_RANGES.count)
  }
  if (flags.instanceId !== undefined) {
    // Leases are keyed by it: it must survive a store round trip unchanged (no control characters).
    if (!/^[\x21-\x7e]{1,255}$/.test(flags.instanceId))
      throw invalidFlag(
        'instance-id',
        '1–255 printable characters without spaces',
        flags.instanceId,
      )
    overrides.instanceId = flags.instanceId
  }
  if (flags.drainTimeout !== undefined) {
    overrides.drainTimeoutMs = flagInteger(
      'drain-timeout',
      flags.drainTimeout,
      NUMBER_RANGES.timeoutMs,
    )
  }
  return overrides
}

/** Hands the overrides to the provider, which reads them when the app boots. */
export function bindOverrides(app: ApplicationService, overrides: DurableOverrides): void {
  app.container.bindValue('durable.overrides', overrides)
}

/** Core's one check of a number, its refusal naming the flag (`details.flag`, as elsewhere). */
function flagInteger(flag: string, value: unknown, range: IntegerRange): number {
  try {
    return checkInteger(value, `--${flag}`, range)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message, { details: { flag }, cause: error })
  }
}

function invalidFlag(flag: string, expected: string, got: unknown): InvalidArgumentError {
  return new InvalidArgumentError(`--${flag} must be ${expected}, got ${JSON.stringify(got)}`, {
    details: { flag },
  })
}
