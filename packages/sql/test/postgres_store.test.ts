/**
 * The store conformance suite on Postgres, a fresh schema per test: with the store's own pool;
 * on a pool handed in by the caller (shared by every test, left open by the store); and with
 * the portable writers of shared/ that the MySQL store uses (lock, decide, write).
 */
import { after } from 'node:test'
import pg from 'pg'
import { storeConformance } from '@cairn/conformance'
import { PortablePostgresStore } from './helpers/portable_postgres_store.ts'
import { PG_URL, conformanceFactory, pgTest } from './helpers/postgres.ts'

storeConformance(pgTest, conformanceFactory('postgres'))

const shared = new pg.Pool({ connectionString: PG_URL, max: 4 })
shared.on('error', () => undefined)
after(() => shared.end())
storeConformance(
  pgTest,
  conformanceFactory('postgres (given pool)', () => ({ pool: shared })),
)

storeConformance(
  pgTest,
  conformanceFactory(
    'postgres (portable writers)',
    () => ({}),
    (options) => new PortablePostgresStore(options),
  ),
)
