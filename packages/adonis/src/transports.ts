/**
 * The transports `config/durable.ts` chooses from for remote steps (docs/remote-steps.md). Each
 * is a config provider, like a store: nothing connects, and no driver or broker client is
 * loaded, until the provider resolves it at boot — in an engine process (its engine half) or
 * in `node ace durable:worker` (its worker half).
 */
/// <reference types="@adonisjs/lucid/database_provider" />
import { configProvider } from '@adonisjs/core'
import type { ApplicationService, ConfigProvider } from '@adonisjs/core/types'
import { InvalidArgumentError } from '@cairn/core'
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import type { DbTransportTuning } from '@cairn/sql/transport'
import { lucidConnectionSettings } from './lucid_connection.ts'
import { queueAdapterFactory } from './queue_adapter.ts'

/** Both halves of a transport: an engine takes `engine()`, `durable:worker` takes `worker()`. */
export interface TransportPair {
  engine(): EngineTransport
  worker(): WorkerTransport
}

export type TransportProvider = ConfigProvider<TransportPair>

/**
 * `bullmqTransport`'s options (docs/bullmq.md), checked by it at boot. Typed loosely here so an
 * app without `@cairn/bullmq` installed still type-checks its config.
 */
export interface BullmqTransportConfig {
  /** A `redis://` URL, ioredis options or an ioredis instance. */
  connection: string | object
  [option: string]: unknown
}

/** `transports.db`'s options: the Lucid connection, the Postgres schema, pool size, tuning. */
export interface DbTransportConfig extends DbTransportTuning {
  /** The Lucid connection whose database holds the tables. Default: Lucid's primary connection. */
  connection?: string
  /** Postgres: the schema (give the store's, when it has one). Default `public`. */
  schema?: string
  /** Connections of the pool each half opens. Default 4. */
  max?: number
}

/**
 * `transports.queue`'s options: which adapter of config/queue.ts, and `queueTransport`'s tuning
 * (docs/queue-transport.md), checked by it at boot. Typed loosely so an app without
 * `@cairn/queue` installed still type-checks its config.
 */
export interface QueueTransportConfig {
  /** An adapter name of config/queue.ts (`redis`, `database`, …). Default: its `default`. */
  adapter?: string
  [option: string]: unknown
}

export const transports = {
  /**
   * Redis through BullMQ (`@cairn/bullmq`, installed next to `@cairn/adonis`): options as
   * `bullmqTransport` takes them (docs/bullmq.md), checked at boot.
   */
  bullmq(options: BullmqTransportConfig): TransportProvider {
    return configProvider.create(async (): Promise<TransportPair> => {
      const { bullmqTransport } = await importOptional<{
        bullmqTransport(options: object): TransportPair
      }>('@cairn/bullmq')
      return bullmqTransport(options)
    })
  },

  /**
   * `@adonisjs/queue` (`@cairn/queue`, installed next to `@cairn/adonis`): tasks travel through
   * an adapter of config/queue.ts — the Redis or database connection the app's jobs use.
   */
  queue(options: QueueTransportConfig = {}): TransportProvider {
    return configProvider.create(async (app: ApplicationService): Promise<TransportPair> => {
      const { adapter, ...tuning } = options
      if (adapter !== undefined && typeof adapter !== 'string')
        throw new InvalidArgumentError('transports.queue: adapter must be an adapter name')
      const factory = await queueAdapterFactory(app, adapter)
      const { queueTransport } = await importOptional<{
        queueTransport(options: object): TransportPair
      }>('@cairn/queue')
      return queueTransport({ ...tuning, adapter: factory })
    })
  },

  /**
   * The app's database, through one of its Lucid connections (docs/db-transport.md): no broker.
   * The transport opens connections of its own with the connection's settings (Postgres,
   * MariaDB/MySQL or SQLite); a `durable:worker` needs the database, never the store.
   */
  db(options: DbTransportConfig = {}): TransportProvider {
    return configProvider.create(async (app: ApplicationService): Promise<TransportPair> => {
      const { connection, schema, max, ...tuning } = options
      const settings = await lucidConnectionSettings(app, connection)
      const sql = await import('@cairn/sql/transport')
      const pool = max === undefined ? {} : { max }
      if (settings.dialect === 'postgres')
        return sql.postgresTransport({
          ...settings.driver,
          ...(schema === undefined ? {} : { schema }),
          ...pool,
          ...tuning,
        })
      if (schema !== undefined)
        throw new InvalidArgumentError(
          `schema is for Postgres; this connection is ${settings.dialect}`,
        )
      if (settings.dialect === 'mysql')
        return sql.mysqlTransport({ ...settings.driver, ...pool, ...tuning })
      if (max !== undefined)
        throw new InvalidArgumentError('max is for Postgres and MySQL; this connection is SQLite')
      return sql.sqliteTransport({ path: settings.path, ...tuning })
    })
  },
}

/** Imports a package the app installs itself, saying which when it is missing. */
async function importOptional<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
      throw new InvalidArgumentError(`needs ${name}: npm install ${name}`, { cause: error })
    throw error
  }
}
