/**
 * Renews the leases of the runs this engine executes, every third of the lease length, through
 * the group committer (one transaction renews them all). A renewal that comes back `fenced`
 * means another engine or a cancel took the run: its turn stops at once.
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { Turn } from '../execution/turn.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'

export class LeaseKeeper {
  private timer: TimerHandle | null = null
  private readonly options: ResolvedEngineOptions
  private readonly committer: Committer
  private readonly turns: () => Iterable<Turn>

  constructor(options: ResolvedEngineOptions, committer: Committer, turns: () => Iterable<Turn>) {
    this.options = options
    this.committer = committer
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

  private renewAll(): void {
    const leaseMs = this.options.leaseMs
    for (const turn of this.turns()) {
      this.committer.enqueue({ type: 'renewLease', fence: turn.fence, leaseMs }).then(
        (result) => {
          if (result.status === 'fenced') turn.lost('lease renewal fenced')
        },
        // The committer retries failed writes itself; a rejection here means it closed.
        () => {},
      )
    }
  }
}
