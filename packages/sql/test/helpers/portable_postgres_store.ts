/**
 * For the package's tests only (not exported): the Postgres store running the portable
 * writers of shared/ (lock, decide, write; claims by locking read then UPDATE), the ones a
 * MySQL/MariaDB store uses, so they are proven against a real server before that dialect
 * exists. No wake-ups.
 */
import { SqlStore } from '../shared/sql_store.ts'
import { lockedClaims } from '../shared/locked_claims.ts'
import { LockedWaveWriter } from '../shared/locked_wave_writer.ts'
import { poolOfStore } from './debug_access.ts'
import type { PostgresStoreOptions } from './options.ts'
import { postgresSetup } from './store_setup.ts'

export class PortablePostgresStore extends SqlStore {
  constructor(options: PostgresStoreOptions) {
    const { parts } = postgresSetup(options)
    super({ ...parts, writer: new LockedWaveWriter(parts), claims: lockedClaims })
    poolOfStore.set(this, parts.pool)
  }
}
