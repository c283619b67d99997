import { InvalidArgumentError } from '@cairn/core'
import { storeInteger, WAIT_MS } from '../option_numbers.ts'

export interface SqliteStoreOptions {
  /** Database file path, or ':memory:' (one connection only; for tests). */
  path: string
  /**
   * `full` (default): a resolved write survives a power loss. `normal`: in WAL mode the last
   * transactions may be lost on power loss, never on a process crash; commits skip an fsync.
   */
  synchronous?: 'full' | 'normal'
  /** How long an operation waits for another connection's lock before E_STORE_FAILURE. */
  busyTimeoutMs?: number
}

export interface ResolvedSqliteOptions {
  path: string
  synchronous: 'full' | 'normal'
  busyTimeoutMs: number
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000

export function resolveOptions(options: SqliteStoreOptions): ResolvedSqliteOptions {
  const { path, synchronous = 'full' } = options
  if (typeof path !== 'string' || path === '') {
    throw new InvalidArgumentError('sqlite store: path must be a non-empty string')
  }
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new InvalidArgumentError(
      `sqlite store: synchronous must be 'full' or 'normal', got ${String(synchronous)}`,
    )
  }
  return { path, synchronous, busyTimeoutMs: resolveBusyTimeout(options.busyTimeoutMs) }
}

/** `busyTimeoutMs`, checked; the default when not given. */
export function resolveBusyTimeout(busyTimeoutMs: unknown = DEFAULT_BUSY_TIMEOUT_MS): number {
  return storeInteger('sqlite', 'busyTimeoutMs', busyTimeoutMs, WAIT_MS)
}
