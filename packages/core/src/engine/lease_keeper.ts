/**
 * Renews the leases of the runs this engine executes, every third of the lease length, through
 * the group committer (one transaction renews them all). A renewal that comes back `fenced`
 * means another engine or a cancel took the run: its turn stops at once; an applied one tells
 * the turn how long its lease surely holds (execution/turn_lease.ts).
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { Turn } from '../execution/turn.ts'
import type { ResolvedEngineOptions } from './options.ts'

export class LeaseKeeper {
  private timer: TimerHandle | null = null
  private readonly options: ResolvedEngineOptions
  private readonly turns: () => Iterable<Turn>

  constructor(options: ResolvedEngineOptions, turns: () => Iterable<Turn>) {
    this.options = options
    this.turns = turns
  }

  start(): void {
    if (this.timer !== null) return
    const every = Math.max(1, Math.floor(this.options.leaseMs / 3))
    const tick = () => {
      this.renewAll()
      this.timer = this.options.clock.setTimer(every, tick)
    }
    this.timer = this.options.clock.setTimer(every, tick)
  }

  stop(): void {
    this.timer?.cancel()
    this.timer = null
  }

  // A fenced renewal ends its turn (TurnLease); one the committer refused means it closed.
  private renewAll(): void {
    for (const turn of this.turns()) void turn.lease.renew()
  }
}
