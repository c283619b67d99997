/**
 * The list order of `GET api/runs` and bulk actions, from an allowlist like the filter keys:
 * `-created` (newest first, the default) or `created` (oldest first). Anything else is a 400,
 * so a typo never silently lists (or bulk-cancels) in an order nobody asked for.
 */
import type { RunListOrder } from '@cairn/core'
import { badRequest } from '../http/http_error.ts'

export const SORT_KEYS = ['-created', 'created'] as const
export type RunSort = (typeof SORT_KEYS)[number]
export const DEFAULT_SORT: RunSort = '-created'

const ORDER_OF_SORT: Readonly<Record<RunSort, RunListOrder>> = {
  '-created': 'newest',
  created: 'oldest',
}

/** The `sort` query key: absent is the default, given twice or unknown a 400. */
export function sortFromSearchParams(params: URLSearchParams): RunSort {
  const values = params.getAll('sort')
  if (values.length > 1) throw badRequest('sort may be given once')
  return checkSort(values[0])
}

/** A `sort` value from a query string or a JSON body. */
export function checkSort(value: unknown): RunSort {
  if (value === undefined || value === null) return DEFAULT_SORT
  if (SORT_KEYS.includes(value as RunSort)) return value as RunSort
  throw badRequest(`sort must be one of ${SORT_KEYS.join(', ')}`)
}

/** The engine's listRuns order for a sort key. */
export function toListOrder(sort: RunSort): RunListOrder {
  return ORDER_OF_SORT[sort]
}
