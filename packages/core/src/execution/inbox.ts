/**
 * The messages (signals) a turn may consume: loaded once per turn with the history, taken in
 * acceptance order per signal name. A message taken by one position is never offered to
 * another in the same turn; it is consumed durably by that position's checkpoint.
 */
import type { InboxMessage } from '../contracts/records.ts'

export class Inbox {
  /** The highest inbox seq this turn has read (the run's inboxSeq when claimed, at least). */
  readonly seen: number
  private readonly byName = new Map<string, InboxMessage[]>()

  constructor(messages: readonly InboxMessage[], claimedInboxSeq: number) {
    let seen = claimedInboxSeq
    for (const message of [...messages].sort((a, b) => a.seq - b.seq)) {
      const list = this.byName.get(message.name)
      if (list === undefined) this.byName.set(message.name, [message])
      else list.push(message)
      if (message.seq > seen) seen = message.seq
    }
    this.seen = seen
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
