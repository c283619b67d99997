/**
 * The memory store's event log and registered event waits, indexed the way the SQL stores
 * index them: the log by name (in append order), the waits by name and by run.
 */
import type {
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
  EventWaitToRegister,
} from '../../contracts/index.ts'
import { compareCodePoints } from './code_point_order.ts'

export class EventState {
  readonly #events = new Map<string, EventRecord>()
  readonly #waitsByName = new Map<string, Map<string, EventWaitRecord>>()
  readonly #waitsByRun = new Map<string, Map<number, EventWaitRecord>>()

  event(id: string): EventRecord | undefined {
    return this.#events.get(id)
  }

  append(event: EventRecord): void {
    this.#events.set(event.id, { ...event })
  }

  /** Deletes up to `limit` events published before `before`, sparing `keepId`. */
  prune(before: number, limit: number, keepId: string): void {
    let left = limit
    for (const [id, event] of this.#events) {
      if (left <= 0) return
      if (event.publishedAt >= before || id === keepId) continue
      this.#events.delete(id)
      left -= 1
    }
  }

  /** Events named `name` published at or after `since`, oldest first, then by id. */
  eventsSince(name: string, since: number): EventRecord[] {
    const found: EventRecord[] = []
    for (const event of this.#events.values())
      if (event.name === name && event.publishedAt >= since) found.push({ ...event })
    return found.sort((a, b) => a.publishedAt - b.publishedAt || compareCodePoints(a.id, b.id))
  }

  /** Registers `wait` for `runId` unless that place already holds one (kept as it is). */
  register(runId: string, wait: EventWaitToRegister): void {
    let ofRun = this.#waitsByRun.get(runId)
    if (ofRun?.has(wait.seq)) return
    const record: EventWaitRecord = {
      runId,
      seq: wait.seq,
      name: wait.name,
      match: wait.match,
      startedAt: wait.startedAt,
    }
    if (ofRun === undefined) this.#waitsByRun.set(runId, (ofRun = new Map()))
    ofRun.set(wait.seq, record)
    let ofName = this.#waitsByName.get(wait.name)
    if (ofName === undefined) this.#waitsByName.set(wait.name, (ofName = new Map()))
    ofName.set(placeKey(runId, wait.seq), record)
  }

  waitsFor(name: string): EventWaitRecord[] {
    return [...(this.#waitsByName.get(name)?.values() ?? [])].map((wait) => ({ ...wait }))
  }

  /** Removes the wait at (runId, seq); true if there was one. */
  remove({ runId, seq }: EventWaitRef): boolean {
    const ofRun = this.#waitsByRun.get(runId)
    const wait = ofRun?.get(seq)
    if (ofRun === undefined || wait === undefined) return false
    ofRun.delete(seq)
    if (ofRun.size === 0) this.#waitsByRun.delete(runId)
    const ofName = this.#waitsByName.get(wait.name)
    ofName?.delete(placeKey(runId, seq))
    if (ofName?.size === 0) this.#waitsByName.delete(wait.name)
    return true
  }

  removeRun(runId: string): void {
    for (const seq of [...(this.#waitsByRun.get(runId)?.keys() ?? [])]) this.remove({ runId, seq })
  }
}

function placeKey(runId: string, seq: number): string {
  return `${seq}:${runId}`
}
