/**
 * `durable:work` flags that override config/durable.ts for this process. They are checked here,
 * naming the flag, and bound as `durable.overrides` before the app boots: the provider builds
 * the engine from the config with them laid over it, and its own shutdown drains with the same
 * timeout.
 */
import { InvalidArgumentError, NUMBER_RANGES } from '@cairn/core'
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
    const { min, max } = NUMBER_RANGES.count
    if (!inRange(flags.concurrency, min, max))
      throw invalidFlag('concurrency', `a whole number from ${min} to ${max}`, flags.concurrency)
    overrides.concurrency = flags.concurrency
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
    const { min, max } = NUMBER_RANGES.timeoutMs
    if (!inRange(flags.drainTimeout, min, max))
      throw invalidFlag(
        'drain-timeout',
        `a whole number of ms from ${min} to ${max}`,
        flags.drainTimeout,
      )
    overrides.drainTimeoutMs = flags.drainTimeout
  }
  return overrides
}

/** Hands the overrides to the provider, which reads them when the app boots. */
export function bindOverrides(app: ApplicationService, overrides: DurableOverrides): void {
  app.container.bindValue('durable.overrides', overrides)
}

function inRange(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
}

function invalidFlag(flag: string, expected: string, got: unknown): InvalidArgumentError {
  return new InvalidArgumentError(`--${flag} must be ${expected}, got ${JSON.stringify(got)}`, {
    details: { flag },
  })
}
