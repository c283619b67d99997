/**
 * Worker reports (results, heartbeats) on a Redis Stream read by one consumer group of engines,
 * instead of a BullMQ queue: a batch is one XREADGROUP and its acknowledgement one XACK + XDEL,
 * where a queue costs two Lua calls per report (fetch, finish). The stream keeps what the
 * transport contract asks of reports:
 * - at least once: an entry stays pending to the engine that read it until acknowledged; an
 *   engine that dies holding a batch lets it go idle, and another engine's XAUTOCLAIM takes it
 *   after `reportHoldMs` (a running handler keeps its batch by re-claiming it, which resets the
 *   idle time);
 * - a rejected batch comes back after `redeliverAfterMs`: its entries are re-claimed with their
 *   idle time set so that they are `redeliverAfterMs` short of the hold;
 * - a Redis restarted empty loses the group too: a read that finds no group makes it again
 *   from the stream's start (reports a worker added since are read).
 * Acknowledged entries are deleted at once, so the stream holds only unsettled reports.
 */
import { InvalidArgumentError } from '@cairn/core/errors'
import type { Redis } from 'ioredis'

/** One report as read: its stream id and its text. */
export interface StreamReport {
  id: string
  text: string
}

const GROUP = 'engines'
const FIELD = 'm'

export const reportStreamKey = (prefix: string): string => `${prefix}:cairn:reports`

/**
 * Refuses a Redis older than 6.2 (no XAUTOCLAIM) when an engine starts consuming, with the
 * version found, instead of failing every look for a dead engine's batch later.
 */
export async function checkStreamSupport(client: Redis): Promise<void> {
  const info = await client.info('server')
  const version = /redis_version:(\d+)\.(\d+)/.exec(info)
  if (version === null) return // not said: a Redis-compatible server, trusted to answer
  const [major, minor] = [Number(version[1]), Number(version[2])]
  if (major > 6 || (major === 6 && minor >= 2)) return
  // The connection option names a server this transport cannot run on.
  throw new InvalidArgumentError(
    `bullmq transport: Redis ${major}.${minor} has no XAUTOCLAIM; the report stream needs Redis 6.2 or later`,
    { details: { option: 'connection', redisVersion: `${major}.${minor}`, needs: '6.2' } },
  )
}

/** The worker's side: one XADD per report. */
export async function addReport(client: Redis, prefix: string, text: string): Promise<void> {
  await client.xadd(reportStreamKey(prefix), '*', FIELD, text)
}

export class ReportStream {
  readonly #key: string
  readonly #consumer: string

  /** `consumer` names this engine in the group (unique per engine half). */
  constructor(prefix: string, consumer: string) {
    this.#key = reportStreamKey(prefix)
    this.#consumer = consumer
  }

  /** Makes the stream and the group when missing (from the stream's start). Idempotent. */
  async ensureGroup(client: Redis): Promise<void> {
    try {
      await client.xgroup('CREATE', this.#key, GROUP, '0', 'MKSTREAM')
    } catch (error) {
      if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error
    }
  }

  /**
   * New reports, up to `count`, waiting up to `blockMs` for the first (on a connection of its
   * own: a blocked connection serves nothing else).
   */
  async read(blocking: Redis, count: number, blockMs: number): Promise<StreamReport[]> {
    const answer = await this.#withGroup(blocking, () =>
      blocking.xreadgroup(
        'GROUP',
        GROUP,
        this.#consumer,
        'COUNT',
        count,
        'BLOCK',
        blockMs,
        'STREAMS',
        this.#key,
        '>',
      ),
    )
    const streams = answer as [string, [string, string[]][]][] | null
    return streams === null ? [] : entries(streams[0]?.[1] ?? [])
  }

  /** Reports other engines (or this one) have left idle for `idleMs`: taken over, up to `count`. */
  async reclaim(client: Redis, idleMs: number, count: number): Promise<StreamReport[]> {
    const answer = await this.#withGroup(client, () =>
      client.xautoclaim(this.#key, GROUP, this.#consumer, idleMs, '0-0', 'COUNT', count),
    )
    const [, claimed] = answer as [string, ([string, string[]] | null)[]]
    return entries(claimed.filter((entry): entry is [string, string[]] => entry !== null))
  }

  /** Keeps a batch this engine holds: its idle time starts again. */
  async keep(client: Redis, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    await client.xclaim(this.#key, GROUP, this.#consumer, 0, ...ids, 'JUSTID')
  }

  /**
   * Gives entries back: idle as if held for `idleMs` already, so whoever reclaims entries idle
   * for the hold takes them after `holdMs - idleMs` (at once when idleMs is the hold).
   */
  async release(client: Redis, ids: readonly string[], idleMs: number): Promise<void> {
    if (ids.length === 0) return
    await client.xclaim(this.#key, GROUP, this.#consumer, 0, ...ids, 'IDLE', idleMs, 'JUSTID')
  }

  /** Every entry pending to this engine (at close: given back). */
  async ownPending(client: Redis, count: number): Promise<string[]> {
    const rows = (await client
      .xpending(this.#key, GROUP, '-', '+', count, this.#consumer)
      .catch(() => [])) as [string, ...unknown[]][]
    return rows.map((row) => row[0])
  }

  /** Settled: acknowledged and deleted, in one transaction. */
  async acknowledge(client: Redis, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    await client
      .multi()
      .xack(this.#key, GROUP, ...ids)
      .xdel(this.#key, ...ids)
      .exec()
  }

  /**
   * Forgets the names of engines gone silent for `idleMs` that hold nothing (a killed engine's,
   * once its batch was taken over). A live engine's reads keep its idle time near zero, and a
   * name holding entries is never dropped (DELCONSUMER would drop them from the group).
   */
  async forgetSilent(client: Redis, idleMs: number): Promise<number> {
    const rows = (await client.xinfo('CONSUMERS', this.#key, GROUP)) as unknown[][]
    let forgotten = 0
    for (const row of rows) {
      const fields = new Map<string, unknown>()
      for (let i = 0; i + 1 < row.length; i += 2) fields.set(String(row[i]), row[i + 1])
      const name = String(fields.get('name'))
      if (name === this.#consumer) continue
      if (Number(fields.get('pending')) !== 0 || Number(fields.get('idle')) < idleMs) continue
      // Only if still holding nothing: a name that took entries since is kept.
      const [pending] = (await client.xpending(this.#key, GROUP, '-', '+', 1, name)) as unknown[]
      if (pending !== undefined) continue
      await client.xgroup('DELCONSUMER', this.#key, GROUP, name)
      forgotten += 1
    }
    return forgotten
  }

  /** Forgets this engine's name in the group (at close, once it holds nothing). */
  async leave(client: Redis): Promise<void> {
    await client.xgroup('DELCONSUMER', this.#key, GROUP, this.#consumer).catch(() => {})
  }

  /** Runs a group command; a group lost with the data (NOGROUP) is made again and tried once more. */
  async #withGroup<T>(client: Redis, command: () => Promise<T>): Promise<T> {
    try {
      return await command()
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOGROUP')) throw error
      await this.ensureGroup(client)
      return command()
    }
  }
}

function entries(raw: readonly [string, string[]][]): StreamReport[] {
  return raw.map(([id, fields]) => ({ id, text: fieldOf(fields) }))
}

/** The report's text: the value of its one field (an entry written otherwise reads as ''). */
function fieldOf(fields: readonly string[]): string {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === FIELD) return fields[i + 1] ?? ''
  return ''
}
