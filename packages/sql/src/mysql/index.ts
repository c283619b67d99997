export { MysqlStore, createMysqlStore } from './mysql_store.ts'
export type { MysqlStoreOptions } from './options.ts'
