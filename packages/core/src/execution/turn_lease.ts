/**
 * What a turn knows about its lease: until when it is surely still held. The store counts a
 * lease from a `now` it reads no earlier than the moment the granting write (a claim, a
 * create-with-claim, a renewal) was sent, so `sentAt + leaseMs` on a monotonic clock is a
 * lower bound of the expiry other engines see; a safety margin below it absorbs clock-rate
 * differences between hosts and a short pause between a check and what it guards.
 *
 * A step attempt (or compensation, transaction, side effect) starts only while the lease is
 * fresh; otherwise the turn confirms it with the store first — a renewal: applied, the lease
 * is fresh again; fenced, the turn is lost and nothing starts. So a process paused past its
 * lease (SIGSTOP, a long GC pause, a laptop lid) never starts a body for a run another
 * engine has taken over. What stays open: a pause longer than the margin that lands after
 * the check and before the body's first instruction, and a body already running when the
 * pause began (docs/reliability.md).
 */
import type { Fence, RenewLeaseOp } from '../contracts/state_store.ts'
import type { Committer } from '../engine/committer.ts'

/** The part of a lease never counted on: a fifth of it (2 s lease: 400 ms). */
const SAFETY_MARGIN = 1 / 5

export interface TurnLeaseDeps {
  committer: Committer
  /** The engine's monotonic clock (ResolvedEngineOptions.monotonic). */
  monotonic: () => number
  leaseMs: number
  /** The lease is gone (a renewal came back fenced): end the turn. */
  onLost(reason: string): void
}

export class TurnLease {
  readonly #deps: TurnLeaseDeps
  readonly #fence: Fence
  readonly #validForMs: number
  #validUntil: number
  #confirming: Promise<void> | null = null
  /**
   * A step outcome was recorded since the last renewal was sent: the next one says so, and the
   * store sets the run's `recoveries` back to 0 (the run moved on: engine/dead_runs.ts).
   */
  #progressed = false

  /** `grantedAt`: the monotonic time the write that granted this lease was sent. */
  constructor(deps: TurnLeaseDeps, fence: Fence, grantedAt: number) {
    this.#deps = deps
    this.#fence = fence
    this.#validForMs = deps.leaseMs - Math.ceil(deps.leaseMs * SAFETY_MARGIN)
    this.#validUntil = grantedAt + this.#validForMs
  }

  /** Surely still held now (the hot path: one clock read). */
  get fresh(): boolean {
    return this.freshAt() !== null
  }

  /** The monotonic time of this check when the lease is surely held now; null when it may not be. */
  freshAt(): number | null {
    const now = this.#deps.monotonic()
    return now < this.#validUntil ? now : null
  }

  /** The turn recorded a step outcome (a completed or failed checkpoint). */
  noteProgress(): void {
    this.#progressed = true
  }

  /**
   * Extend the lease in the store (the engine's periodic renewal, or a confirmation). Resolves
   * once the store answered: `held` (applied: what the turn knows is extended), `lost`
   * (fenced: the turn has ended), or `unknown` (the committer closed: the engine stopped).
   */
  renew(): Promise<'held' | 'lost' | 'unknown'> {
    const sentAt = this.#deps.monotonic()
    const op: RenewLeaseOp = { type: 'renewLease', fence: this.#fence, leaseMs: this.#deps.leaseMs }
    if (this.#progressed) op.progressed = true
    this.#progressed = false
    return this.#deps.committer.enqueue(op).then(
      (result) => {
        if (result.status === 'applied') {
          this.#validUntil = Math.max(this.#validUntil, sentAt + this.#validForMs)
          return 'held'
        }
        const status = result.status === 'fenced' ? (result.current?.status ?? 'gone') : '?'
        this.#deps.onLost(`lease renewal fenced (run is ${status})`)
        return 'lost'
      },
      () => 'unknown',
    )
  }

  /**
   * Call `then` once the lease is known to be held — at once when fresh — or once the turn
   * has ended because it is not (fenced; or unconfirmable, the engine having stopped): `then`
   * must check that the turn is still live. Concurrent callers share one confirmation.
   */
  whenConfirmed(then: () => void): void {
    if (this.fresh) return then()
    this.confirm(then)
  }

  /**
   * Ask the store, however fresh the lease looks: a cancel from another process moves the
   * epoch long before the lease would lapse, and only a write learns it. `then` as above.
   */
  confirm(then: () => void): void {
    this.#confirming ??= this.renew()
      .then((state) => {
        if (state === 'unknown') this.#deps.onLost('lease unconfirmed: the engine stopped')
      })
      .finally(() => (this.#confirming = null))
    void this.#confirming.then(then)
  }
}
