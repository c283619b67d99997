/**
 * A test helper: the Postgres store running the portable writers of shared/ (lock, decide,
 * write; claims of runs, of event accumulators and of schedules by locking read then
 * UPDATE), the ones a MySQL/MariaDB store uses, so they are proven against a real server
 * before that dialect exists. No wake-ups.
 */
import { SqlStore } from '../../src/shared/sql_store.ts'
import { lockedBatchClaims } from '../../src/shared/locked_batch_claims.ts'
import { lockedClaims } from '../../src/shared/locked_claims.ts'
import { lockedScheduleClaims } from '../../src/shared/locked_schedule_claims.ts'
import { LockedWaveWriter } from '../../src/shared/locked_wave_writer.ts'
import { poolOfStore } from '../../src/postgres/debug_access.ts'
import type { PostgresStoreOptions } from '../../src/postgres/options.ts'
import { postgresSetup } from '../../src/postgres/store_setup.ts'

export class PortablePostgresStore extends SqlStore {
  constructor(options: PostgresStoreOptions) {
    const { parts } = postgresSetup(options)
    super({
      ...parts,
      writer: new LockedWaveWriter(parts),
      claims: lockedClaims,
      batchClaims: lockedBatchClaims,
      scheduleClaims: lockedScheduleClaims,
    })
    poolOfStore.set(this, parts.pool)
  }
}
