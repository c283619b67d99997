/**
 * `durable:worker`'s flags, checked before the app boots and naming the flag when refused. The
 * numbers and lists are checked again by createWorker; here they get the flag's name.
 */
import { InvalidArgumentError } from '@cairn/core'
import { checkInteger, NUMBER_RANGES } from '@cairn/core/store-kit'
import { CAPABILITY_NAME, checkCapabilities } from '@cairn/core/wire'
import { concurrencyFromText, type WorkerOptions } from '@cairn/worker'

export interface WorkerFlags {
  transport?: string
  /** `8`, `adaptive` or `adaptive:MIN-MAX` (concurrencyFromText). */
  concurrency?: string
  capabilities?: string
  workerId?: string
  drainTimeout?: number
  heartbeatTimeout?: number
}

export interface WorkerOverrides {
  transport?: string
  concurrency?: WorkerOptions['concurrency']
  capabilities?: string[]
  workerId?: string
  drainTimeoutMs?: number
  holdMs?: number
}

export function workerOverrides(flags: WorkerFlags): WorkerOverrides {
  const out: WorkerOverrides = {}
  if (flags.transport !== undefined) out.transport = flags.transport
  if (flags.concurrency !== undefined)
    out.concurrency = concurrencyFromText(String(flags.concurrency))
  if (flags.capabilities !== undefined) {
    const list = flags.capabilities
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '')
    // The capability-name rule steps' `requires` and createWorker share (@cairn/core/wire).
    if (!list.every((c) => CAPABILITY_NAME.test(c)))
      throw invalid(
        'capabilities',
        'a comma-separated list of names (letters, digits, _ . : -)',
        flags.capabilities,
      )
    out.capabilities = checkCapabilities([...new Set(list)], '--capabilities')
  }
  if (flags.workerId !== undefined) {
    if (!/^[\x21-\x7e]{1,255}$/.test(flags.workerId))
      throw invalid('worker-id', '1–255 printable characters without spaces', flags.workerId)
    out.workerId = flags.workerId
  }
  if (flags.heartbeatTimeout !== undefined)
    out.holdMs = flagInteger('heartbeat-timeout', flags.heartbeatTimeout, {
      min: 1_000,
      max: 2_147_483_647,
    })
  if (flags.drainTimeout !== undefined)
    out.drainTimeoutMs = flagInteger('drain-timeout', flags.drainTimeout, NUMBER_RANGES.timeoutMs)
  return out
}

function flagInteger(flag: string, value: unknown, range: { min: number; max: number }): number {
  try {
    return checkInteger(value, `--${flag}`, range)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message, { details: { flag }, cause: error })
  }
}

function invalid(flag: string, expected: string, got: unknown): InvalidArgumentError {
  return new InvalidArgumentError(`--${flag} must be ${expected}, got ${JSON.stringify(got)}`, {
    details: { flag },
  })
}
