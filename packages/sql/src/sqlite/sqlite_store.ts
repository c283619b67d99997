/**
 * StateStore on node:sqlite. One connection per store; every call is synchronous SQLite work
 * wrapped in a bounded, asynchronous busy retry. Writes run in BEGIN IMMEDIATE transactions:
 * within this process calls never interleave, and across processes the write lock serializes
 * them. See docs/sqlite.md.
 */
import type { DatabaseSync } from 'node:sqlite'
import { StoreFailureError } from '@cairn/core'
import type {
  CheckpointRecord,
  ClaimRequest,
  ClaimResult,
  ListRunsQuery,
  OpResult,
  ParkReason,
  RunPage,
  RunRecord,
  StateStore,
  StoreOp,
  WorkflowKey,
} from '@cairn/core/contracts'
import { retryWhileBusy, withBusyRetry, type RetryBound } from './busy_retry.ts'
import { CallGate } from '../shared/call_gate.ts'
import { connectionOfStore } from './debug_access.ts'
import { claimRuns } from './claim_runs.ts'
import { enableWal, openConnection } from './connection.ts'
import { listRuns } from './list_runs.ts'
import { parkUnrunnable, reclaimOwned, unpark } from './maintenance.ts'
import { migrate } from './migrate.ts'
import { applyOp } from './ops/apply_op.ts'
import { resolveOptions, type ResolvedSqliteOptions, type SqliteStoreOptions } from './options.ts'
import { toCheckpointRecord, toRunRecord, type CheckpointRow, type RunRow } from './row_mapping.ts'
import { StatementCache } from './statement_cache.ts'
import { prepareStatements, type Statements } from './statements.ts'
import { prepareTransactionStatements, inImmediateTransaction } from './transaction.ts'
import { isBusy, storeFailure } from './sqlite_errors.ts'

interface Connection {
  db: DatabaseSync
  s: Statements
  cache: StatementCache
}

export class SqliteStore implements StateStore {
  readonly kind = 'sqlite'
  readonly #options: ResolvedSqliteOptions
  readonly #gate = new CallGate()
  #connection: Connection | null = null
  #opening: Promise<void> | null = null
  #closing: Promise<void> | null = null

  constructor(options: SqliteStoreOptions) {
    this.#options = resolveOptions(options)
  }

  open(): Promise<void> {
    if (this.#closing) return Promise.reject(closedError('open'))
    this.#opening ??= this.#open().catch((err: unknown) => {
      this.#opening = null // a failed open may be retried
      throw err
    })
    return this.#opening
  }

  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    return this.#call('applyBatch', (c) =>
      ops.length === 0 ? [] : inTransaction(c, () => ops.map((op) => applyOp(c.s, op, now))),
    )
  }

  claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    return this.#write('claimRuns', ({ s, cache }) => claimRuns(s, cache, request))
  }

  reclaimOwned(owner: string, now: number): Promise<number> {
    return this.#write('reclaimOwned', ({ s }) => reclaimOwned(s, owner, now))
  }

  parkUnrunnable(
    runnable: readonly WorkflowKey[],
    olderThan: number,
    reason: ParkReason,
    now: number,
  ): Promise<number> {
    return this.#write('parkUnrunnable', ({ cache }) =>
      parkUnrunnable(cache, runnable, olderThan, reason, now),
    )
  }

  unpark(keys: readonly WorkflowKey[], reasonCode: string, now: number): Promise<number> {
    return this.#write('unpark', ({ cache }) => unpark(cache, keys, reasonCode, now))
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.#call('getRun', ({ s }) => {
      const row = s.selectRun.get(runId) as unknown as RunRow | undefined
      return row === undefined ? null : toRunRecord(row)
    })
  }

  loadCheckpoints(runId: string): Promise<CheckpointRecord[]> {
    return this.#call('loadCheckpoints', ({ s }) =>
      (s.loadCheckpoints.all(runId) as unknown as CheckpointRow[]).map(toCheckpointRecord),
    )
  }

  listRuns(query: ListRunsQuery): Promise<RunPage> {
    return this.#call('listRuns', ({ cache }) => listRuns(cache, query))
  }

  async #open(): Promise<void> {
    const { busyTimeoutMs, path } = this.#options
    const db = await withBusyRetry('open', busyTimeoutMs, () => openConnection(this.#options))
    try {
      await withBusyRetry('open (journal mode)', busyTimeoutMs, () => enableWal(db, path))
      const tx = prepareTransactionStatements(db)
      await withBusyRetry('open (migrate)', busyTimeoutMs, () => migrate(db, tx))
      this.#connection = { db, s: prepareStatements(db, tx), cache: new StatementCache(db) }
      connectionOfStore.set(this, db)
    } catch (err) {
      db.close()
      throw err
    }
  }

  async #close(): Promise<void> {
    await this.#opening?.catch(() => undefined)
    await this.#gate.drain()
    this.#connection?.db.close()
    this.#connection = null
    connectionOfStore.delete(this)
  }

  /** One write transaction (BEGIN IMMEDIATE … COMMIT); nothing applied if it rejects. */
  #write<T>(operation: string, body: (c: Connection) => T): Promise<T> {
    return this.#call(operation, (c) => inTransaction(c, () => body(c)))
  }

  /**
   * Runs `body` on the open connection. The first attempt runs synchronously: without
   * contention a call costs no extra promise hop. A busy database moves the call to the
   * asynchronous retry path, which close() waits for.
   */
  #call<T>(operation: string, body: (c: Connection) => T): Promise<T> {
    const connection = this.#connection
    if (this.#closing || connection === null) return Promise.reject(closedError(operation))
    const startedAt = Date.now()
    try {
      return Promise.resolve(body(connection))
    } catch (err) {
      if (!isBusy(err)) return Promise.reject(storeFailure(operation, err))
      return this.#retry(
        operation,
        { startedAt, boundMs: this.#options.busyTimeoutMs },
        () => body(connection),
        err,
      )
    }
  }

  async #retry<T>(
    operation: string,
    bound: RetryBound,
    attempt: () => T,
    firstError: unknown,
  ): Promise<T> {
    this.#gate.enter()
    try {
      return await retryWhileBusy(operation, bound, attempt, firstError)
    } finally {
      this.#gate.leave()
    }
  }
}

export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options)
}

function inTransaction<T>(c: Connection, body: () => T): T {
  return inImmediateTransaction(c.db, c.s.tx, body)
}

function closedError(operation: string): StoreFailureError {
  const state = 'the store is closed or was never opened'
  return new StoreFailureError(`sqlite store: ${operation} rejected: ${state}`, {
    details: { operation },
  })
}
