/**
 * A small shared map kept in the adapter, for what the adapter contract has no place for (the
 * fleet's announcements, the task queues' routes): the payload of one job in a queue nobody
 * pops. Read with `getJob`; written by `pushOn` with `dedup: { replace: true }`, which swaps the
 * payload of the pending job in one operation. The contract has no compare-and-set, so two
 * writers can lose each other's entry: every writer reads its entry back after writing and
 * writes again (after a random pause) until it is there. Fleet announcements are rewritten every
 * few seconds anyway; a route is rewritten by the next publish that finds it missing.
 */
import type { QueueAdapter } from './adapter.ts'

export type Entries = Record<string, string>

const ATTEMPTS = 8

export class RegistryRecord {
  readonly #adapter: QueueAdapter
  readonly #queue: string
  readonly #id: string

  constructor(adapter: QueueAdapter, queue: string, id: string) {
    this.#adapter = adapter
    this.#queue = queue
    this.#id = id
  }

  /** The entries now ({} when the record was never written or does not hold a map). */
  async read(): Promise<Entries> {
    const record = await this.#adapter.getJob(this.#id, this.#queue)
    return entriesOf(record?.data.payload)
  }

  /**
   * Applies `change` to the entries and writes them, until `holds` is true of what is read back.
   * `change` returns null when nothing needs writing. Rejects after a few lost races in a row.
   */
  async update(
    change: (entries: Entries) => Entries | null,
    holds: (entries: Entries) => boolean,
  ): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const next = change(await this.read())
      if (next === null) return
      await this.#adapter.pushOn(this.#queue, {
        id: this.#id,
        name: `cairn.registry`,
        payload: { entries: next },
        attempts: 0,
        dedup: { id: this.#id, replace: true },
      })
      if (holds(await this.read())) return
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt))
    }
    throw new Error(
      `queue transport: the ${this.#id} record in ${this.#queue} kept changing under this write (${ATTEMPTS} attempts)`,
    )
  }
}

function entriesOf(payload: unknown): Entries {
  if (typeof payload !== 'object' || payload === null) return {}
  const entries = (payload as { entries?: unknown }).entries
  if (typeof entries !== 'object' || entries === null) return {}
  const out: Entries = Object.create(null) as Entries
  for (const [key, value] of Object.entries(entries)) {
    if (typeof value === 'string') out[key] = value
  }
  return out
}

/** A copy with `key` set (or removed, for undefined): data properties only, whatever the key. */
export function withEntry(entries: Entries, key: string, value: string | undefined): Entries {
  const kept = Object.entries(entries).filter(([k]) => k !== key)
  if (value !== undefined) kept.push([key, value])
  return Object.fromEntries(kept)
}
