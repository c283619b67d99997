import type { Migration } from '../../shared/migration.ts'
import { initial } from './001_initial.ts'

/** Every MySQL/MariaDB migration, in revision order. Append only; each statement idempotent. */
export const migrations: readonly Migration[] = [initial]

export const latestRevision = migrations.length
