/** One schema step. Revisions are dense from 1; a migration never changes once released. */
export interface Migration {
  revision: number
  name: string
  /** Statements run inside the migrating BEGIN IMMEDIATE transaction. */
  sql: string
}
