/**
 * The SqlPool driver over a mysql2/promise pool (shared/driver.ts). Statements go over the
 * text protocol with their values written in (statement_text.ts), rows come back as arrays,
 * BIGINT as a number when exact and a string otherwise (refused loudly by shared/integers.ts),
 * and binary strings (the VARBINARY id columns) as text. mysql2 does not pipeline: every
 * statement is one round trip, counted in `statementCount`.
 */
import type { FieldPacket, QueryOptions, QueryResult, TypeCast } from 'mysql2/promise'
import type { FailureKind, SqlPool, SqlResult, SqlSession, SqlStatement } from '../shared/driver.ts'
import { OutcomeUnknown } from '../shared/failures.ts'
import {
  classifyMysqlError,
  describeMysqlError,
  isConnectionLoss,
  isMissingTable,
  isPacketTooLarge,
} from './mysql_errors.ts'
import type { SessionSetup } from './session_setup.ts'
import { StatementTooLarge, statementText } from './statement_text.ts'

/**
 * What MysqlPool uses of a mysql2/promise pool (which is one). knex/knex_mysql_pool.ts offers
 * the same over the connections of a Knex instance, so both run this one driver.
 */
export interface MysqlConnectionPool {
  getConnection(): Promise<MysqlPooledConnection>
  end(): Promise<void>
}

/** A connection checked out of a MysqlConnectionPool: the part of a PoolConnection MysqlPool uses. */
export interface MysqlPooledConnection {
  /** The object emitting 'error' when the connection fails (mysql2's core connection). */
  readonly connection: ErrorEmitter
  query(options: QueryOptions): Promise<[QueryResult, FieldPacket[]]>
  release(): void
  /** Closes the connection instead of handing it to the next caller; `reason`: its failure. */
  destroy(reason: Error): void
}

export interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: 'error', listener: (error: Error) => void): unknown
}

export interface MysqlPoolOptions {
  /** close() ends the pool; a pool handed in by the caller is left to the caller. */
  owned: boolean
  /** Settings each new connection gets before its first statement (the store's own pool). */
  session: SessionSetup | null
  /**
   * Each transaction runs at READ COMMITTED, set by SET TRANSACTION just before it (one more
   * statement; the session's own level is left alone): for connections the store borrows.
   */
  readCommittedTransactions: boolean
}

const START: SqlStatement = { text: 'START TRANSACTION', values: [] }
/** Applies to the next transaction only (MySQL and MariaDB alike). */
const READ_COMMITTED_NEXT: SqlStatement = {
  text: 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
  values: [],
}
const COMMIT: SqlStatement = { text: 'COMMIT', values: [] }
const ROLLBACK: SqlStatement = { text: 'ROLLBACK', values: [] }
const MAX_PACKET: SqlStatement = { text: 'SELECT @@max_allowed_packet', values: [] }

/** Statements shorter than this (in UTF-16 units) are far below any server's packet limit. */
const CHECK_SIZE_ABOVE = 64 * 1024

/** VARBINARY columns (ids, names) arrive as Buffers; everything Cairn stores is UTF-8 text. */
const typeCast: TypeCast = (field, next) =>
  field.type === 'VAR_STRING' || field.type === 'STRING' ? field.string('utf8') : next()

/** Per query, whatever the pool's own settings: a pool handed in keeps its defaults for others. */
const QUERY_OPTIONS = {
  rowsAsArray: true,
  supportBigNumbers: true,
  nestTables: false,
  typeCast,
} satisfies Omit<QueryOptions, 'sql'>

export class MysqlPool implements SqlPool {
  readonly #pool: MysqlConnectionPool
  readonly #owned: boolean
  readonly #session: SessionSetup | null
  readonly #start: readonly SqlStatement[]
  #statements = 0
  #maxPacket: number | null = null

  constructor(pool: MysqlConnectionPool, options: MysqlPoolOptions) {
    this.#pool = pool
    this.#owned = options.owned
    this.#session = options.session
    this.#start = options.readCommittedTransactions ? [READ_COMMITTED_NEXT, START] : [START]
  }

  get statementCount(): number {
    return this.#statements
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
      for (const statement of this.#start) await this.#run(checkout, statement)
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
    return classifyMysqlError(error)
  }

  describe(error: unknown): Record<string, unknown> {
    return describeMysqlError(error)
  }

  isMissingTable(error: unknown): boolean {
    return isMissingTable(error)
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end()
  }

  async #checkout(): Promise<Checkout> {
    const checkout = new Checkout(await this.#pool.getConnection())
    if (this.#session === null || this.#session.isReady(checkout.connection)) return checkout
    try {
      await this.#session.prepare(checkout.connection, (statement) =>
        this.#run(checkout, statement),
      )
      return checkout
    } catch (error) {
      checkout.broken ??= error as Error
      checkout.release()
      throw error
    }
  }

  async #run(checkout: Checkout, statement: SqlStatement): Promise<SqlResult> {
    const sql = statementText(statement)
    if (sql.length > CHECK_SIZE_ABOVE) await this.#checkSize(checkout, sql)
    this.#statements++
    try {
      const [result] = await checkout.connection.query({ ...QUERY_OPTIONS, sql })
      return Array.isArray(result)
        ? { rows: result as unknown[][], affected: 0 }
        : { rows: [], affected: result.affectedRows }
    } catch (error) {
      // After refusing a packet the server closes the connection: it must not be reused.
      if (isConnectionLoss(error) || isPacketTooLarge(error)) checkout.broken ??= error as Error
      throw error
    }
  }

  /**
   * Refuses, before sending, a statement the server would refuse: it would close the
   * connection after reading it, and a large one can fail as a reset socket instead of
   * saying why. The limit is read once, on the first large statement.
   */
  async #checkSize(checkout: Checkout, sql: string): Promise<void> {
    this.#maxPacket ??= Number((await this.#run(checkout, MAX_PACKET)).rows[0]?.[0])
    const bytes = Buffer.byteLength(sql) + 1 // the command byte
    if (bytes > this.#maxPacket) throw new StatementTooLarge(bytes, this.#maxPacket)
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
 * A connection taken from the pool, with an 'error' listener for the time it is out (an
 * 'error' event without one would crash the process). A connection that failed is destroyed
 * on release, not handed to the next caller.
 */
class Checkout {
  readonly connection: MysqlPooledConnection
  broken: Error | null = null
  readonly #onError = (error: Error) => {
    this.broken ??= error
  }

  constructor(connection: MysqlPooledConnection) {
    this.connection = connection
    connection.connection.on('error', this.#onError)
  }

  release(): void {
    this.connection.connection.removeListener('error', this.#onError)
    if (this.broken === null) this.connection.release()
    else this.connection.destroy(this.broken)
  }
}
