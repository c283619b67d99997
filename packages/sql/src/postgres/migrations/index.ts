import type { Migration } from '../../shared/migration.ts'
import { initial } from './001_initial.ts'

/** Every Postgres migration, in revision order. Append only. */
export const migrations: readonly Migration[] = [initial]

export const latestRevision = migrations.length
