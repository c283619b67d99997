/**
 * The connections of a Knex instance on `mysql2` seen as the pool MysqlPool drives
 * (mysql/mysql_pool.ts), so the MySQL store runs its one driver on them: statement text,
 * array rows, exact BIGINTs, packet limits, error classification and outcome-unknown
 * commits all as on its own pool. Knex's connections are mysql2's callback connections.
 */
import type { FieldPacket, QueryOptions, QueryResult } from 'mysql2/promise'
import type {
  ErrorEmitter,
  MysqlConnectionPool,
  MysqlPooledConnection,
} from '../mysql/mysql_pool.ts'
import { giveBack, type KnexClient } from './knex_client.ts'

/** The part of mysql2's callback Connection used here. */
interface CallbackConnection extends ErrorEmitter {
  query(
    options: QueryOptions,
    callback: (error: Error | null, result: QueryResult, fields: FieldPacket[]) => void,
  ): unknown
  destroy(): void
}

export class KnexMysqlPool implements MysqlConnectionPool {
  readonly #knex: KnexClient

  constructor(knex: KnexClient) {
    this.#knex = knex
  }

  async getConnection(): Promise<MysqlPooledConnection> {
    const connection = (await this.#knex.acquireConnection()) as CallbackConnection
    return new BorrowedMysqlConnection(this.#knex, connection)
  }

  /** Never called (the MysqlPool does not own it): the Knex instance is the application's. */
  end(): Promise<void> {
    return Promise.resolve()
  }
}

class BorrowedMysqlConnection implements MysqlPooledConnection {
  readonly connection: CallbackConnection
  readonly #knex: KnexClient

  constructor(knex: KnexClient, connection: CallbackConnection) {
    this.#knex = knex
    this.connection = connection
  }

  query(options: QueryOptions): Promise<[QueryResult, FieldPacket[]]> {
    return new Promise((resolve, reject) => {
      this.connection.query(options, (error, result, fields) => {
        if (error) reject(error)
        else resolve([result, fields])
      })
    })
  }

  release(): void {
    giveBack(this.#knex, this.connection, null)
  }

  /** Closed now (as mysql2's pool does) and marked so Knex never lends it again. */
  destroy(reason: Error): void {
    this.connection.destroy()
    giveBack(this.#knex, this.connection, reason)
  }
}
