/**
 * One attempt of a transactional step, seen from the turn: the store opens a database
 * transaction, the step's function writes through its handle, the outcome checkpoint is saved
 * in that transaction under the turn's fence, and the store commits. Only then does the outcome
 * reach the workflow (durability rule), and only after every outcome recorded before it
 * (committer.afterQueued, DeliveryHold): the transaction commits beside the group commit.
 *
 * The delivery order is taken inside the transaction, once the function has returned, so a
 * long transaction does not hold back the outcomes of the run's other branches. An order
 * taken by a transaction that then rolls back is left unused: replay orders by it, and a gap
 * changes nothing there.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import type { Fence, StateStore } from '../contracts/state_store.ts'
import type { TransactionalWork } from '../contracts/transactions.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import type { Committer } from '../engine/committer.ts'
import type { StepRecordInput } from './runtime.ts'
import { StoreFailureError, TransactionsUnsupportedError } from '../errors/index.ts'

/** What the turn lends an attempt. */
export interface TransactionalHost {
  readonly fence: Fence
  /** False once the turn has ended. */
  isLive(): boolean
  readonly store: StateStore
  readonly committer: Committer
  /** Take the next delivery order and hold later deliveries of the run behind it. */
  reserveOrder(): number
  /** The `completed` checkpoint of `step` with `output` (codec text) at delivery `order`. */
  completedRecord(step: StepRecordInput, output: string | null, order: number): CheckpointRecord
  /** Deliver `record` at its reserved `order` (null: nothing to deliver) and release it. */
  settleReserved(order: number, record: CheckpointRecord | null): void
  /** The lease moved on: end the turn without writing anything more. */
  lost(reason: string): void
}

/** The turn ended while the function ran: roll back, there is no lease to commit under. */
class TurnEnded extends Error {}

interface Reservation {
  order: number
  record: CheckpointRecord
  /** Settles once the writes queued before the order was taken are acknowledged. */
  earlierWrites: Promise<void>
}

/**
 * `run` calls the step's function with the handle and encodes its value (throwing when it
 * cannot: nothing is committed then). Resolves true once the outcome is committed and handed
 * to the deliverer, false when the turn ended instead (rolled back); rejects with the
 * function's error (rolled back, nothing recorded) or the store's.
 */
export async function commitTransactional(
  host: TransactionalHost,
  step: StepRecordInput,
  run: (handle: unknown) => Promise<string | null>,
  /** The lines the step logged, taken once its function returned: they commit with it. */
  takeLogs: () => StepLogAppend | undefined = () => undefined,
): Promise<boolean> {
  const store = host.store
  if (store.runTransactionalStep === undefined) throw unsupported(store.kind)
  const slot: { reservation?: Reservation } = {}
  const work: TransactionalWork = async (handle) => {
    const output = await run(handle)
    if (!host.isLive()) throw new TurnEnded()
    const order = host.reserveOrder()
    const { promise, resolve } = Promise.withResolvers<void>()
    host.committer.afterQueued(resolve)
    const record = host.completedRecord(step, output, order)
    slot.reservation = { order, record, earlierWrites: promise }
    const logs = takeLogs()
    return logs === undefined ? { checkpoint: record } : { checkpoint: record, logs }
  }
  let result
  try {
    result = await store.runTransactionalStep(host.fence, work)
  } catch (error) {
    if (slot.reservation !== undefined) host.settleReserved(slot.reservation.order, null)
    if (error instanceof TurnEnded) return false
    throw error
  }
  const reservation = slot.reservation
  if (result.status === 'fenced') {
    if (reservation !== undefined) host.settleReserved(reservation.order, null)
    host.lost(`transactional step fenced (run is ${result.current?.status ?? 'gone'})`)
    return false
  }
  if (reservation === undefined) throw workNotCalled(store.kind)
  await reservation.earlierWrites
  // conflict: an earlier attempt did commit (its outcome was reported lost); this one rolled back.
  const delivered = result.status === 'conflict' ? result.existing : reservation.record
  host.settleReserved(reservation.order, delivered)
  return true
}

/** A store bug: it reported a commit without running the step. */
function workNotCalled(kind: string): StoreFailureError {
  return new StoreFailureError(
    `the ${kind} store ended a transactional step without calling its function`,
  )
}

function unsupported(kind: string): TransactionsUnsupportedError {
  return new TransactionsUnsupportedError(
    `ctx.transaction: the ${kind} store does not share a database connection with your app, so your writes cannot commit with the step's checkpoint; use stores.lucid or KnexStore`,
    { details: { store: kind } },
  )
}
