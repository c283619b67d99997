export { SqliteStore, createSqliteStore } from './sqlite_store.ts'
export type { SqliteStoreOptions } from './options.ts'
