/**
 * The connections of a Knex instance on `pg` seen as the pool PgPool drives
 * (postgres/pg_pool.ts), so the Postgres store runs its one driver on them: prepared
 * statements, array rows, exact int8, error classification and outcome-unknown commits
 * all as on its own pool. Knex's connections are `pg.Client`s (or a `pg.Pool`'s clients
 * when Knex was given one as `connectionPool`).
 */
import type pg from 'pg'
import type { PgClientPool, PgPooledClient } from '../postgres/pg_pool.ts'
import { giveBack, type KnexClient } from './knex_client.ts'

export class KnexPgPool implements PgClientPool {
  readonly #knex: KnexClient

  constructor(knex: KnexClient) {
    this.#knex = knex
  }

  async connect(): Promise<PgPooledClient> {
    return new BorrowedPgClient(this.#knex, (await this.#knex.acquireConnection()) as pg.Client)
  }

  /** Never called (the PgPool does not own it): the Knex instance is the application's. */
  end(): Promise<void> {
    return Promise.resolve()
  }
}

class BorrowedPgClient implements PgPooledClient {
  readonly #knex: KnexClient
  readonly #connection: pg.Client

  constructor(knex: KnexClient, connection: pg.Client) {
    this.#knex = knex
    this.#connection = connection
  }

  query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult> {
    return this.#connection.query(config)
  }

  on(event: 'error', listener: (error: Error) => void): void {
    this.#connection.on(event, listener)
  }

  removeListener(event: 'error', listener: (error: Error) => void): void {
    this.#connection.removeListener(event, listener)
  }

  /** A failed connection is closed now (as pg-pool does) and marked so Knex never lends it again. */
  release(error?: Error): void {
    if (error !== undefined) this.#connection.end().catch(() => undefined)
    giveBack(this.#knex, this.#connection, error ?? null)
  }
}
