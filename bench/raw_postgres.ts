/**
 * The raw limit of this machine's Postgres under the workload's concurrency: C producers write
 * W×S single rows, each awaiting its own durable commit (synchronous_commit on, the default).
 * - 'pool' (the `raw-postgres` row): a pool of C connections, every row its own autocommit
 *   INSERT on its producer's connection; Postgres's WAL group commit coalesces the concurrent
 *   commits into shared fsyncs.
 * - 'batched' (`raw-postgres-batched`, on request): the producers' rows go through one shared
 *   loop that commits everything queued as one multi-row INSERT on one connection, the way
 *   raw-sqlite does (one transaction per tick).
 */
import pg from 'pg'
import { PG_URL, withAdminClient, withScratchSchema } from './postgres_service.ts'
import type { RawResult } from './raw_sqlite.ts'
import { groupCommitWriter, measureRaw, type RawWriter, type Write } from './raw_producers.ts'
import { C } from './workload.ts'

const BODY = '{"i":1,"ok":true,"v":1}'
const INSERT = 'INSERT INTO rows (run, seq, body) VALUES ($1, $2, $3)'
const SOLO_COMMITS = 300

export function rawPostgres(mode: 'pool' | 'batched'): Promise<RawResult> {
  return withScratchSchema('cairn_bench_raw', async (schema) => {
    await withAdminClient((c) =>
      c.query(`CREATE TABLE ${schema}.rows (run TEXT NOT NULL, seq INTEGER NOT NULL,
        body TEXT NOT NULL, PRIMARY KEY (run, seq))`),
    )
    const pool = new pg.Pool({
      connectionString: PG_URL,
      max: C,
      options: `-c search_path=${schema}`,
    })
    const openSolo = async () => {
      const client = await pool.connect()
      const commit = async (i: number) => {
        await client.query({ name: 'raw-insert', text: INSERT, values: ['solo', i, BODY] })
      }
      return { commit, release: () => client.release() }
    }
    try {
      const writer = mode === 'pool' ? await poolWriter(pool) : await batchedWriter(pool)
      return await measureRaw(writer, openSolo, SOLO_COMMITS)
    } finally {
      await pool.end()
    }
  })
}

async function poolWriter(pool: pg.Pool): Promise<RawWriter> {
  // Open all C connections up front: connection setup is not what this row measures.
  const clients = await Promise.all(Array.from({ length: C }, () => pool.connect()))
  for (const client of clients) client.release()
  // A named statement is parsed once per connection, as a tuned driver would.
  const write: Write = async (run, seq) => {
    await pool.query({ name: 'raw-insert', text: INSERT, values: [run, seq, BODY] })
  }
  return { write, close: async () => {} }
}

async function batchedWriter(pool: pg.Pool): Promise<RawWriter> {
  const client = await pool.connect()
  // One statement is one transaction: everything queued since the last commit commits at once.
  const write = groupCommitWriter(async (rows) => {
    await client.query(
      'INSERT INTO rows (run, seq, body) SELECT * FROM unnest($1::text[], $2::int[], $3::text[])',
      [rows.map((r) => r.run), rows.map((r) => r.seq), rows.map(() => BODY)],
    )
  })
  return { write, close: async () => client.release() }
}
