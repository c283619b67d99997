/**
 * `@cairn/sql/knex`: a Cairn store on an existing Knex instance, running on the connections
 * of the application's pool (an AdonisJS app hands over Lucid's). The store is the one of the
 * Knex instance's database, with its shared SQL, migrations and tests: Postgres on `pg`,
 * MySQL/MariaDB on `mysql2`, SQLite on `better-sqlite3`. See docs/knex.md.
 */
export { KnexStore, createKnexStore } from './knex_store.ts'
export type { KnexStoreOptions } from './options.ts'
export type { OpenTransaction, TransactionOpener } from './transaction_opener.ts'
