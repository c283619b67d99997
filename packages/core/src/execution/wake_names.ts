/**
 * The message names that may wake a suspending run (SuspendRunOp.wakeOn): the message each open
 * wait would take (a signal's name, a child's result, an update, a breakpoint's continue, an
 * event delivery) and a cancel. Any other message is stored for a later wait but does not
 * wake the run: waking it would replay it to find nothing to do, at a cost that grows with the
 * inbox — 10,000 signals nobody waits for would cost 10,000 replays.
 */
import { CANCEL_SIGNAL } from './wait_names.ts'

/**
 * Past this many characters the list is not kept (null: every message wakes the run, always
 * correct). Names are at most ~200 characters; a run waits on a few at a time.
 */
const MAX_WAKE_ON_CHARS = 4_096

/** Waits of a suspending turn: timers name no message. */
interface NamedWait {
  message?: string
}

export function wakeOnOf(waits: Iterable<NamedWait>): string[] | null {
  const names = new Set([CANCEL_SIGNAL])
  let chars = CANCEL_SIGNAL.length
  for (const { message } of waits) {
    if (message === undefined || names.has(message)) continue
    names.add(message)
    chars += message.length + 1
    if (chars > MAX_WAKE_ON_CHARS) return null
  }
  return [...names]
}
