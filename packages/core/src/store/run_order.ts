/**
 * listRuns order and where a page starts: the order checked (E_INVALID_ARGUMENT) and the
 * cursor decoded against it, the same way on every store, so a store only has to turn
 * `descending` and `after` into its own ORDER BY and keyset condition.
 */
import type { ListRunsQuery, RunListOrder } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { decodeCursor, type CursorPosition } from './run_cursor.ts'

export const RUN_LIST_ORDERS: readonly RunListOrder[] = ['newest', 'oldest']

export interface ListStart {
  order: RunListOrder
  /** createdAt, then id, descending (newest) rather than ascending (oldest). */
  descending: boolean
  /** The position to continue past (exclusive), in `order`; null for the first page. */
  after: CursorPosition | null
}

/** The query's order and cursor, checked: the order first, then the cursor against it. */
export function listStart(query: Pick<ListRunsQuery, 'order' | 'cursor'>): ListStart {
  const order = checkRunOrder(query.order)
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order)
  return { order, descending: order === 'newest', after }
}

export function checkRunOrder(order: unknown): RunListOrder {
  if (order === undefined) return 'newest'
  if (RUN_LIST_ORDERS.includes(order as RunListOrder)) return order as RunListOrder
  throw new InvalidArgumentError(
    `listRuns: order must be one of ${RUN_LIST_ORDERS.join(', ')}, got ${String(order)}`,
    { details: { field: 'order' } },
  )
}
