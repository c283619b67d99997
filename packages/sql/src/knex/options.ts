import { InvalidArgumentError } from '@cairn/core'
import { validateDatabase } from '../mysql/options.ts'
import { validateSchema } from '../postgres/options.ts'
import { resolveBusyTimeout } from '../sqlite/options.ts'
import type { KnexTarget } from './dialect.ts'
import { checkTransactionOpener, type TransactionOpener } from './transaction_opener.ts'

export interface KnexStoreOptions {
  /** Postgres: the schema holding Cairn's tables, created on open() if missing. Default `public`. */
  schema?: string
  /**
   * MySQL/MariaDB: the database holding Cairn's tables, created on open() if missing.
   * Default: the database Knex connects to.
   */
  database?: string
  /** SQLite: how long a call waits out another connection's lock before E_STORE_FAILURE. Default 5000. */
  busyTimeoutMs?: number
  /**
   * How `ctx.transaction` opens its transaction (transaction_opener.ts). Default: a Knex
   * transaction on this instance, given to the step as it is. Any dialect.
   */
  transactions?: TransactionOpener
}

/** Each option: the dialect it applies to, and its check (modules that load no driver). */
const OPTIONS: Readonly<
  Record<
    keyof KnexStoreOptions,
    { dialect: KnexTarget['dialect'] | 'any'; check(value: unknown): void }
  >
> = {
  schema: { dialect: 'postgres', check: validateSchema },
  database: { dialect: 'mysql', check: validateDatabase },
  busyTimeoutMs: { dialect: 'sqlite', check: resolveBusyTimeout },
  transactions: { dialect: 'any', check: checkTransactionOpener },
}

/** Checks the options given; one of another dialect is refused (it would be ignored otherwise). */
export function checkOptionsFor(target: KnexTarget, options: KnexStoreOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('knex store: options must be an object')
  }
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue
    const option = Object.hasOwn(OPTIONS, name)
      ? OPTIONS[name as keyof KnexStoreOptions]
      : undefined
    if (option === undefined) {
      throw new InvalidArgumentError(`knex store: unknown option ${JSON.stringify(name)}`)
    }
    if (option.dialect !== 'any' && option.dialect !== target.dialect) {
      throw new InvalidArgumentError(
        `knex store: option ${name} applies to ${option.dialect} only; this Knex instance runs ${target.driver}`,
      )
    }
    option.check(value)
  }
}
