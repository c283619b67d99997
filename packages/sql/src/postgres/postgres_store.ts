/**
 * StateStore on Postgres through node-postgres: the shared SQL store (shared/sql_store.ts)
 * with the Postgres dialect, driver, one-statement waves and claims, migrations, and
 * LISTEN/NOTIFY wake-ups. See docs/postgres.md.
 */
import type { ClientConfig } from 'pg'
import { closedStoreError } from '../shared/failures.ts'
import { SqlStore } from '../shared/sql_store.ts'
import { poolOfStore } from './debug_access.ts'
import type { PostgresStoreOptions } from './options.ts'
import { postgresSetup, type PostgresSetup } from './store_setup.ts'
import { startWakeListener } from './wake_listener.ts'

/**
 * The Postgres store over a setup: PostgresStore builds one from its options, and
 * `@cairn/sql/knex` from the connections of a Knex instance.
 */
export class PostgresSqlStore extends SqlStore {
  declare readonly kind: 'postgres'
  readonly #listenerConfig: () => ClientConfig
  readonly #channel: string
  readonly #watchers = new Set<() => Promise<void>>()

  constructor(setup: PostgresSetup) {
    super(setup.parts)
    this.#listenerConfig = setup.listenerConfig
    this.#channel = setup.channel
    poolOfStore.set(this, setup.parts.pool)
  }

  /**
   * Wake-ups: applyBatch publishes one NOTIFY per batch that made runs claimable (in the same
   * transaction, so it is delivered on commit), with the earliest availableAt as payload.
   */
  async watchClaimable(onWake: (at: number) => void): Promise<() => Promise<void>> {
    if (!this.isOpen) throw closedStoreError(this.kind, 'watchClaimable')
    const stop = await startWakeListener({
      config: this.#listenerConfig(),
      channel: this.#channel,
      onWake,
    })
    const stopOnce = async () => {
      if (this.#watchers.delete(stopOnce)) await stop()
    }
    this.#watchers.add(stopOnce)
    return stopOnce
  }

  protected override async beforeClose(): Promise<void> {
    await Promise.all([...this.#watchers].map((stop) => stop()))
  }
}

export class PostgresStore extends PostgresSqlStore {
  constructor(options: PostgresStoreOptions) {
    super(postgresSetup(options))
  }
}

export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(options)
}
