/**
 * The SqlPool driver over node-postgres (shared/driver.ts). Every statement is sent with rows
 * as arrays, Cairn's int8 parser, and, when it has bound values, as a named prepared statement.
 * node-postgres does not pipeline: each statement is one round trip, counted in
 * `statementCount`.
 */
import type pg from 'pg'
import type { FailureKind, SqlPool, SqlResult, SqlSession, SqlStatement } from '../shared/driver.ts'
import { OutcomeUnknown } from '../shared/failures.ts'
import { classifyPgError, describePgError, isConnectionLoss, isMissingTable } from './pg_errors.ts'
import { PG_TYPES } from './pg_types.ts'
import { StatementNames } from './statement_names.ts'
import { PlanRefresh } from './plan_refresh.ts'
import { connectionFailure } from './connection_guard.ts'

/**
 * What PgPool uses of a pg.Pool (which is one). knex/knex_pg_pool.ts offers the same over the
 * connections of a Knex instance, so both run this one driver.
 */
export interface PgClientPool {
  connect(): Promise<PgPooledClient>
  end(): Promise<void>
}

/** A client checked out of a PgClientPool: the part of pg.PoolClient PgPool uses. */
export interface PgPooledClient {
  query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult>
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: 'error', listener: (error: Error) => void): unknown
  /** With an error: the connection failed, and is destroyed instead of reused. */
  release(error?: Error): void
}

const BEGIN: SqlStatement = { text: 'BEGIN', values: [] }
const COMMIT: SqlStatement = { text: 'COMMIT', values: [] }
const ROLLBACK: SqlStatement = { text: 'ROLLBACK', values: [] }

export class PgPool implements SqlPool {
  readonly #pool: PgClientPool
  readonly #owned: boolean
  readonly #names = new StatementNames()
  #statements = 0
  #plans: PlanRefresh | null = null

  /** `owned`: close() ends the pool; a pool handed in by the caller is left to the caller. */
  constructor(pool: PgClientPool, owned: boolean) {
    this.#pool = pool
    this.#owned = owned
  }

  get statementCount(): number {
    return this.#statements
  }

  /**
   * Renew the prepared statements' plans as `table` (a qualified name) grows (plan_refresh.ts).
   * The size is read on a connection of the pool, outside any statement count.
   */
  refreshPlansAsGrows(table: string): void {
    this.#plans = new PlanRefresh(() => this.#sizeOf(table))
  }

  async #sizeOf(table: string): Promise<number> {
    const client = await this.#pool.connect()
    try {
      const result = await client.query({
        text: 'SELECT pg_relation_size($1::regclass)',
        values: [table],
        rowMode: 'array',
        types: PG_TYPES,
      })
      return Number(result.rows[0]?.[0] ?? 0)
    } finally {
      client.release()
    }
  }

  async query(statement: SqlStatement): Promise<SqlResult> {
    const checkout = await this.#checkout()
    try {
      return await this.#run(checkout, statement)
    } catch (error) {
      if (statement.writes && isConnectionLoss(error)) throw new OutcomeUnknown(error)
      throw error
    } finally {
      checkout.release()
    }
  }

  async transaction<T>(body: (session: SqlSession) => Promise<T>): Promise<T> {
    const checkout = await this.#checkout()
    try {
      await this.#run(checkout, BEGIN)
      const result = await body({ query: (statement) => this.#run(checkout, statement) })
      await this.#commit(checkout)
      return result
    } catch (error) {
      if (!(error instanceof OutcomeUnknown)) await this.#rollback(checkout)
      throw error
    } finally {
      checkout.release()
    }
  }

  classify(error: unknown): FailureKind {
    return classifyPgError(error)
  }

  describe(error: unknown): Record<string, unknown> {
    return describePgError(error)
  }

  isMissingTable(error: unknown): boolean {
    return isMissingTable(error)
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end()
  }

  async #checkout(): Promise<Checkout> {
    return new Checkout(await this.#pool.connect())
  }

  async #run(checkout: Checkout, statement: SqlStatement): Promise<SqlResult> {
    this.#statements++
    this.#plans?.tick()
    const { text, values, name } = statement
    try {
      const result = await checkout.client.query({
        text,
        values: values as unknown[],
        name: values.length === 0 ? undefined : this.#named(name ?? this.#names.of(text)),
        rowMode: 'array',
        types: PG_TYPES,
      })
      return { rows: result.rows, affected: result.rowCount ?? 0 }
    } catch (error) {
      if (isConnectionLoss(error)) checkout.broken ??= error as Error
      throw error
    }
  }

  /** A statement's name in the current plan generation (plan_refresh.ts). */
  #named(name: string): string {
    const generation = this.#plans?.generation ?? 0
    return generation === 0 ? name : `${name}_g${generation}`
  }

  /** A connection lost while COMMIT is in flight leaves the outcome unknown. */
  async #commit(checkout: Checkout): Promise<void> {
    try {
      await this.#run(checkout, COMMIT)
    } catch (error) {
      throw isConnectionLoss(error) ? new OutcomeUnknown(error) : error
    }
  }

  /** Best effort: the original error is what the caller needs; a failed ROLLBACK drops the connection. */
  async #rollback(checkout: Checkout): Promise<void> {
    if (checkout.broken !== null) return
    try {
      await this.#run(checkout, ROLLBACK)
    } catch (error) {
      checkout.broken ??= error as Error
    }
  }
}

/**
 * A connection taken from the pool. While checked out, a client has no error listener of the
 * pool's: an 'error' event with none would crash the process, so one is attached for the
 * duration, and a client whose connection failed is destroyed on release, not reused.
 */
class Checkout {
  readonly client: PgPooledClient
  broken: Error | null = null
  readonly #onError = (error: Error) => {
    this.broken ??= error
  }

  constructor(client: PgPooledClient) {
    this.client = client
    // An error between the pool handing it out and this listener (connection_guard.ts).
    this.broken = connectionFailure(client)
    client.on('error', this.#onError)
  }

  release(): void {
    this.client.removeListener('error', this.#onError)
    this.client.release(this.broken ?? undefined)
  }
}
