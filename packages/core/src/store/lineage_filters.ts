/**
 * listRuns' `tag` and `originRunId` filters, checked the same way by every store before it
 * reads anything: each, when given, is a string (E_INVALID_ARGUMENT otherwise). Any string is
 * a valid filter: one no run carries (too long, say) simply matches nothing.
 */
import type { ListRunsQuery } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export function checkLineageFilters(query: ListRunsQuery): void {
  for (const key of ['tag', 'originRunId'] as const) {
    const value: unknown = query[key]
    if (value !== undefined && typeof value !== 'string') {
      throw new InvalidArgumentError(`listRuns: ${key} must be a string, got ${typeof value}`, {
        details: { filter: key },
      })
    }
  }
}
