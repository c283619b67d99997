/**
 * Messages for a busy turn. A turn reads its run's inbox when claimed and, normally, sees a
 * later message only when it suspends (the store then wakes it at once). A turn that cannot
 * suspend yet — a long step runs in another branch — would make a signal wait lose every race
 * against that step. While such a turn has waits that a message could end, it reads the
 * inbox again: at once when this process accepted a message for the run (a signal sent here,
 * a child that finished here), and every `pollMs` for messages accepted by other processes.
 * New messages are handed to the turn, which re-evaluates those waits.
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'
import type { InboxMessage } from '../contracts/records.ts'

export interface InboxWatchHost {
  readonly live: boolean
  /** Whether a wait that a message could end is pending. */
  readonly hasMessageWaits: boolean
  /** New messages read: add them and re-evaluate the waits. */
  receive(messages: readonly InboxMessage[]): void
  /** Reads in flight count as engine work (Engine.whenQuiet waits for them). */
  workStarted(): void
  workEnded(): void
}

export class InboxWatch {
  readonly #clock: Clock
  readonly #pollMs: number
  readonly #load: () => Promise<InboxMessage[]>
  readonly #host: InboxWatchHost
  #timer: TimerHandle | null = null
  #reading = false
  #again = false

  constructor(
    clock: Clock,
    pollMs: number,
    load: () => Promise<InboxMessage[]>,
    host: InboxWatchHost,
  ) {
    this.#clock = clock
    this.#pollMs = pollMs
    this.#load = load
    this.#host = host
  }

  /** A message wait is pending: look again every `pollMs` while the turn runs. */
  arm(): void {
    if (this.#timer !== null) return
    this.#timer = this.#clock.setTimer(this.#pollMs, () => {
      this.#timer = null
      if (this.#host.live && this.#host.hasMessageWaits) void this.read()
    })
  }

  /** Read the inbox now (a message for this run was accepted here). */
  async read(): Promise<void> {
    if (!this.#host.live) return
    if (this.#reading) {
      this.#again = true
      return
    }
    this.#reading = true
    this.#host.workStarted()
    try {
      const messages = await this.#load()
      if (this.#host.live) this.#host.receive(messages)
    } catch {
      // The next poll, or the next turn (the suspend sees what it missed), reads it.
    } finally {
      this.#reading = false
      this.#host.workEnded()
    }
    if (this.#again) {
      this.#again = false
      return this.read()
    }
    if (this.#host.live && this.#host.hasMessageWaits) this.arm()
  }

  stop(): void {
    this.#timer?.cancel()
    this.#timer = null
  }
}
