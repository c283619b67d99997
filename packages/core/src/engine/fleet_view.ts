/**
 * What the engine believes about its worker fleet, for blocked runs (docs/design/remote_steps.md):
 * each transport's live announcements, read every FLEET_REFRESH_MS while the engine drives — a
 * turn asks synchronously, so the answer comes from the last read, never from a read of its
 * own. A read that fails keeps the previous answer; one older than FLEET_TRUST_MS, or none yet,
 * answers "cannot tell" — and a run is only ever blocked on a positive finding, never because
 * the fleet could not be read.
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'
import type { Logger } from '../contracts/logger.ts'
import type { WorkerInfo } from './worker_views.ts'

/** How often each transport's announcements are read while the engine drives. */
export const FLEET_REFRESH_MS = 5_000
/** A read older than this (the reads keep failing) no longer blocks anything. */
export const FLEET_TRUST_MS = 30_000
/** A worker counts as live when it announced itself within this (three announcement periods). */
export const FLEET_SEEN_WITHIN_MS = 30_000

/**
 * The live workers heard on one transport (`since`: their own clocks' time, ms); null when it
 * is not to be read now (the engine stopped).
 */
export type FleetReader = (transport: string, since: number) => Promise<WorkerInfo[] | null>

interface Snapshot {
  /** Monotonic time of the read. */
  readAt: number
  workers: readonly WorkerInfo[]
}

export class FleetView {
  private readonly snapshots = new Map<string, Snapshot>()
  private readonly reading = new Map<string, Promise<void>>()
  /** Transports whose last read failed: the next failure is not logged again. */
  private readonly failing = new Set<string>()
  private readonly read: FleetReader
  private readonly clock: Clock
  private readonly monotonic: () => number
  private readonly logger: Logger
  private timer: TimerHandle | null = null

  constructor(read: FleetReader, clock: Clock, monotonic: () => number, logger: Logger) {
    this.read = read
    this.clock = clock
    this.monotonic = monotonic
    this.logger = logger
  }

  /** Read every transport in `transports` now and every FLEET_REFRESH_MS until stop. Idempotent. */
  start(transports: readonly string[]): void {
    if (this.timer !== null) return
    const tick = (): void => {
      for (const name of transports) void this.refresh(name)
      this.timer = this.clock.setTimer(FLEET_REFRESH_MS, tick)
    }
    tick()
  }

  /** Stop reading and forget every read (the next start reads afresh). */
  stop(): void {
    this.timer?.cancel()
    this.timer = null
    this.snapshots.clear()
    this.failing.clear()
  }

  /**
   * Why no live worker can serve `step` (with every capability in `requires`) on `transport`,
   * or null: one can, or the engine cannot tell (no read yet, or the reads keep failing).
   */
  blockedReason(transport: string, step: string, requires: readonly string[]): string | null {
    const snapshot = this.snapshots.get(transport)
    if (snapshot === undefined || this.monotonic() - snapshot.readAt >= FLEET_TRUST_MS) return null
    return missingFor(transport, snapshot.workers, step, requires)
  }

  /** Read `transport`'s fleet now unless a read is in flight; resolves when it is done. */
  refresh(transport: string): Promise<void> {
    const inFlight = this.reading.get(transport)
    if (inFlight !== undefined) return inFlight
    const read = this.readOnce(transport).finally(() => this.reading.delete(transport))
    this.reading.set(transport, read)
    return read
  }

  private async readOnce(transport: string): Promise<void> {
    try {
      const workers = await this.read(transport, Date.now() - FLEET_SEEN_WITHIN_MS)
      if (workers === null) return
      this.snapshots.set(transport, { readAt: this.monotonic(), workers })
      this.failing.delete(transport)
    } catch (error) {
      // Once per outage: a transport that is down fails every read until it is back.
      if (this.failing.has(transport)) return
      this.failing.add(transport)
      this.logger.warn({ err: error, transport }, 'reading the worker fleet failed')
    }
  }
}

/** What no live worker offers, in the words an operator reads on the run; null: one serves it. */
export function missingFor(
  transport: string,
  workers: readonly WorkerInfo[],
  step: string,
  requires: readonly string[],
): string | null {
  if (workers.length === 0) return `no live worker on transport "${transport}"`
  const speaking = workers.filter((w) => w.protocol !== null)
  if (speaking.length === 0) {
    const theirs = [...new Set(workers.flatMap((w) => w.protocols))].sort((a, b) => a - b)
    return `no live worker on "${transport}" speaks this engine's protocol (they speak ${theirs.join(', ')})`
  }
  const running = speaking.filter((w) => w.steps.includes(step))
  if (running.length === 0) return `no live worker on "${transport}" runs step "${step}"`
  if (running.some((w) => requires.every((c) => w.capabilities.includes(c)))) return null
  const offered = new Set(running.flatMap((w) => w.capabilities))
  const missing = requires.filter((c) => !offered.has(c))
  return missing.length > 0
    ? `no live worker running "${step}" on "${transport}" offers ${missing.join(', ')}`
    : `no single live worker running "${step}" on "${transport}" offers all of ${requires.join(', ')}`
}
