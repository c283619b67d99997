/**
 * Ordered delivery of step outcomes to workflow bodies.
 *
 * Replay must reproduce how concurrent branches interleaved. So each run receives at most
 * one outcome per macrotask: after an outcome is delivered, every microtask it causes (the
 * body running to its next await) completes before the run's next outcome is delivered. The
 * first execution and every replay then see the same sequence of body states, and positions
 * taken by later calls come out the same. Different runs are independent and receive theirs
 * in the same macrotask; outcomes for one run arriving in one macrotask queue up and cost one
 * `setImmediate` per extra outcome, not one per step.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import type { Fifo } from '../util/fifo.ts'

export interface DeliveryTarget {
  /** Outcomes waiting for this target, oldest first (owned by the deliverer). */
  readonly deliveryQueue: Fifo<CheckpointRecord>
  /** Hand one outcome to the workflow body. */
  receive(outcome: CheckpointRecord): void
  /** The deliverer's tick in which this target last received an outcome. */
  lastDeliveryTick: number
  /** Called in the macrotask after a delivery, once its microtasks have run (idle checks). */
  afterDrain(): void
}

export class Deliverer {
  private tick = 1
  private tickBumpScheduled = false
  private readonly backlog = new Set<DeliveryTarget>()
  private delivered: DeliveryTarget[] = []

  /** Deliver `outcome` to `target` now if it has had none in this macrotask, else queue it. */
  push(target: DeliveryTarget, outcome: CheckpointRecord): void {
    if (target.deliveryQueue.length === 0 && target.lastDeliveryTick !== this.tick) {
      this.deliver(target, outcome)
      return
    }
    target.deliveryQueue.push(outcome)
    this.backlog.add(target)
    this.scheduleTickBump()
  }

  /** Make `target` wait for the next macrotask before its first delivery (a body just started). */
  hold(target: DeliveryTarget): void {
    target.lastDeliveryTick = this.tick
    this.scheduleTickBump()
  }

  /** Drop whatever is queued for `target` (its turn ended). */
  forget(target: DeliveryTarget): void {
    target.deliveryQueue.clear()
    this.backlog.delete(target)
  }

  private deliver(target: DeliveryTarget, outcome: CheckpointRecord): void {
    target.lastDeliveryTick = this.tick
    this.delivered.push(target)
    this.scheduleTickBump()
    target.receive(outcome)
  }

  private scheduleTickBump(): void {
    if (this.tickBumpScheduled) return
    this.tickBumpScheduled = true
    setImmediate(this.onNewMacrotask)
  }

  // A new macrotask: every microtask of the previous deliveries has run.
  private readonly onNewMacrotask = (): void => {
    this.tickBumpScheduled = false
    this.tick += 1
    const drained = this.delivered
    this.delivered = []
    for (const target of drained) target.afterDrain()
    const targets = [...this.backlog]
    this.backlog.clear()
    for (const target of targets) this.deliverNext(target)
  }

  private deliverNext(target: DeliveryTarget): void {
    const next = target.deliveryQueue.shift()
    if (next === undefined) return
    if (target.deliveryQueue.length > 0) this.backlog.add(target)
    this.deliver(target, next)
  }
}
