import type { RunInfo } from '@cairn/core'
import type { Order } from '#services/orders'
import type { OrderRecords } from '#services/order_records'

/** GET /orders/:id: the order row, its checkout run, and what the shop's tables recorded. */
export function presentOrder(order: Order, run: RunInfo | null, records: OrderRecords) {
  const base = `/orders/${order.id}`
  const deciding = order.needsApproval && run !== null && !isTerminal(run.status)
  return {
    id: order.id,
    status: order.status,
    sku: order.sku,
    quantity: order.quantity,
    amountCents: order.amountCents,
    cardLast4: order.cardLast4,
    needsApproval: order.needsApproval,
    approvedBy: order.approvedBy,
    failureReason: order.failureReason,
    createdAt: order.createdAt.toISOString(),
    run: run === null ? null : presentRun(run),
    ...records,
    links: {
      self: base,
      timeline: `${base}/timeline`,
      ...(deciding ? { approve: `${base}/approve`, reject: `${base}/reject` } : {}),
    },
  }
}

function presentRun(run: RunInfo) {
  return {
    id: run.id,
    status: run.status,
    waitingOn: run.waitingOn,
    wakeAt: run.wakeAt?.toISOString() ?? null,
    error: run.error === null ? null : { code: run.error.code, message: run.error.message },
    output: run.output ?? null,
  }
}

export function isTerminal(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}
