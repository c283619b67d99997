/**
 * The messages (signals) a turn may consume: loaded once per turn with the history, taken in
 * acceptance order per signal name. A message taken by one position is never offered to
 * another in the same turn; it is consumed durably by that position's checkpoint.
 */
import type { InboxMessage } from '../contracts/records.ts'

export class Inbox {
  #seen: number
  private readonly byName = new Map<string, InboxMessage[]>()

  constructor(messages: readonly InboxMessage[], claimedInboxSeq: number) {
    this.#seen = claimedInboxSeq
    for (const message of bySeq(messages)) this.#push(message)
  }

  /** The highest inbox seq this turn has read (the run's inboxSeq when claimed, at least). */
  get seen(): number {
    return this.#seen
  }

  /**
   * The run's unconsumed messages read again while the turn runs (a signal sent to a busy
   * run): those accepted after everything this turn has seen join their names' queues, in
   * acceptance order. Returns how many were new.
   */
  addNewer(messages: readonly InboxMessage[]): number {
    let added = 0
    for (const message of bySeq(messages)) {
      if (message.seq <= this.#seen) continue
      this.#push(message)
      added++
    }
    return added
  }

  /**
   * A message this turn learnt of from a write's result (a queue grant answered with the save
   * that asked for it): counted as read when it is the very next one, so the run's next
   * suspend does not wake it for a message it has used. Otherwise nothing changes (messages
   * in between are unread: the suspend wakes the run for them, as it should).
   */
  acknowledge(seq: number): void {
    if (seq === this.#seen + 1) this.#seen = seq
  }

  #push(message: InboxMessage): void {
    const list = this.byName.get(message.name)
    if (list === undefined) this.byName.set(message.name, [message])
    else list.push(message)
    if (message.seq > this.#seen) this.#seen = message.seq
  }

  static empty(claimedInboxSeq: number): Inbox {
    return new Inbox([], claimedInboxSeq)
  }

  take(name: string): InboxMessage | null {
    const list = this.byName.get(name)
    const message = list?.shift()
    if (list !== undefined && list.length === 0) this.byName.delete(name)
    return message ?? null
  }
}

function bySeq(messages: readonly InboxMessage[]): InboxMessage[] {
  return [...messages].sort((a, b) => a.seq - b.seq)
}
