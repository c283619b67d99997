/** One schema step of a dialect. Revisions are dense from 1; a migration never changes once released. */
import type { Tables } from './tables.ts'

export interface Migration {
  revision: number
  name: string
  /** The DDL, one statement per entry, for the store's tables (schema-qualified). */
  statements(tables: Tables): string[]
}
