/** Checks of option values shared by commands; a bad value is a usage error (exit 2). */
import { RUN_STATUSES } from '@cairn/core'
import type { RunStatus } from '@cairn/core/contracts'
import { UsageError } from './usage_error.ts'

export { RUN_STATUSES }

export function statusesOf(values: readonly string[] | undefined): RunStatus[] | undefined {
  if (values === undefined || values.length === 0) return undefined
  for (const value of values)
    if (!RUN_STATUSES.includes(value as RunStatus))
      throw new UsageError(`--status ${value}: expected one of ${RUN_STATUSES.join(', ')}`)
  return values as RunStatus[]
}

/** An integer option within [min, max], or `fallback` when absent. */
export function integerOf(
  name: string,
  value: string | undefined,
  range: { min: number; max: number; fallback: number },
): number {
  if (value === undefined) return range.fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < range.min || n > range.max)
    throw new UsageError(
      `--${name} ${value}: expected an integer from ${range.min} to ${range.max}`,
    )
  return n
}
