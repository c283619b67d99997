/**
 * The raw limit of this machine's MySQL/MariaDB under the workload's concurrency, as
 * raw_postgres.ts measures Postgres's: C producers write W×S single rows, each awaiting its own
 * durable commit (innodb_flush_log_at_trx_commit = 1, the default).
 * - 'pool' (the `raw-mysql` row): a pool of C connections, every row its own autocommit INSERT
 *   (a prepared statement) on its producer's connection; InnoDB's group commit coalesces the
 *   concurrent commits into shared log flushes.
 * - 'batched' (`raw-mysql-batched`, on request): the producers' rows go through one shared loop
 *   that commits everything queued as one multi-row INSERT on one connection — the limit a
 *   store batching its writes into one transaction could approach.
 */
import mysql from 'mysql2/promise'
import { MYSQL_URL, withScratchDatabase } from './mysql_service.ts'
import type { RawResult } from './raw_sqlite.ts'
import { groupCommitWriter, measureRaw, type RawWriter, type Write } from './raw_producers.ts'
import { C } from './workload.ts'

const BODY = '{"i":1,"ok":true,"v":1}'
const INSERT = 'INSERT INTO rows_ (run, seq, body) VALUES (?, ?, ?)'
const SOLO_COMMITS = 300

export function rawMysql(mode: 'pool' | 'batched'): Promise<RawResult> {
  return withScratchDatabase('cairn_bench_raw', async (database) => {
    const admin = await mysql.createConnection({ uri: MYSQL_URL })
    try {
      await admin.query(`CREATE DATABASE \`${database}\``)
      await admin.query(`CREATE TABLE \`${database}\`.rows_ (run VARCHAR(64) NOT NULL,
        seq INT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run, seq)) ENGINE=InnoDB`)
    } finally {
      await admin.end()
    }
    const pool = mysql.createPool({ uri: MYSQL_URL, database, connectionLimit: C })
    const openSolo = async () => {
      const connection = await pool.getConnection()
      const commit = async (i: number) => {
        await connection.execute(INSERT, ['solo', i, BODY])
      }
      return { commit, release: () => connection.release() }
    }
    try {
      const writer = mode === 'pool' ? await poolWriter(pool) : await batchedWriter(pool)
      return await measureRaw(writer, openSolo, SOLO_COMMITS)
    } finally {
      await pool.end()
    }
  })
}

async function poolWriter(pool: mysql.Pool): Promise<RawWriter> {
  // Open all C connections up front: connection setup is not what this row measures.
  const connections = await Promise.all(Array.from({ length: C }, () => pool.getConnection()))
  for (const connection of connections) connection.release()
  const write: Write = async (run, seq) => {
    await pool.execute(INSERT, [run, seq, BODY])
  }
  return { write, close: async () => {} }
}

async function batchedWriter(pool: mysql.Pool): Promise<RawWriter> {
  const connection = await pool.getConnection()
  // One autocommit statement is one transaction: everything queued since the last commits at once.
  const write = groupCommitWriter(async (rows) => {
    await connection.query('INSERT INTO rows_ (run, seq, body) VALUES ?', [
      rows.map((r) => [r.run, r.seq, BODY]),
    ])
  })
  return { write, close: async () => connection.release() }
}
