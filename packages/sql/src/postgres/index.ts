export { PostgresStore, createPostgresStore } from './postgres_store.ts'
export type { PostgresStoreOptions } from './options.ts'
