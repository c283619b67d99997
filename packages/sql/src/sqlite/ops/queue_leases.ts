/**
 * StateStore.leaseQueueSlots on SQLite, inside the caller's BEGIN IMMEDIATE (the one writer:
 * no grant pass runs meanwhile, so the read-then-write is safe): the queue made or its
 * concurrency set (as an enqueue does), its expired leases deleted, then the counts read and
 * the owner's slots decided by the shared rule (store-kit leasedSlots), its lease written
 * (deleted when it holds nothing). Grants no waiter: slots given back reach them by the
 * queue's next pass.
 */
import { leasedSlots } from '@cairn/core/store-kit'
import type { QueueLease, QueueLeaseRequest } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

interface LeaseCountsRow {
  granted: number
  waiting: number
  mine: number
  others: number
}

/** The request checked (checkQueueLease): the owner's slots after the call. */
export function leaseQueue(s: Statements, request: QueueLeaseRequest, now: number): QueueLease {
  const { queue, owner, concurrency, leaseMs } = request
  s.leaseQueue.run(queue, concurrency)
  s.deleteExpiredLeases.run(queue, now)
  const row = s.selectLeaseCounts.get(owner, owner, queue) as unknown as LeaseCountsRow
  const waiting = Number(row.waiting)
  const held = leasedSlots(request, {
    concurrency,
    granted: Number(row.granted),
    othersLeased: Number(row.others),
    mine: Number(row.mine),
    waiting,
  })
  const expiresAt = now + leaseMs
  if (held > 0) s.upsertLease.run(queue, owner, held, expiresAt)
  else s.deleteLease.run(queue, owner)
  return { held, expiresAt, waiting }
}
