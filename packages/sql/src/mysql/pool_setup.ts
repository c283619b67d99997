/** The pool a store runs on: the caller's, or one the store creates and owns. */
import mysql from 'mysql2/promise'
import { MysqlPool } from './mysql_pool.ts'
import type { ResolvedMysqlOptions } from './options.ts'
import { SessionSetup } from './session_setup.ts'

/** How long opening a connection may take before it fails (and the call is retried). */
const CONNECT_TIMEOUT_MS = 10_000
/** TCP keepalive: a peer that vanished (network cut) is noticed instead of waited for. */
const KEEPALIVE_DELAY_MS = 10_000

export function setUpPool(options: ResolvedMysqlOptions): MysqlPool {
  if (options.pool !== null) {
    return new MysqlPool(options.pool, {
      owned: false,
      session: null,
      readCommittedTransactions: false,
    })
  }
  const pool = mysql.createPool({
    uri: options.uri ?? undefined,
    connectionLimit: options.max,
    maxIdle: options.max,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableKeepAlive: true,
    keepAliveInitialDelay: KEEPALIVE_DELAY_MS,
    // mysql2 captures a stack trace for every query by default (for its error messages):
    // 7% of the client's CPU time in a profile of the hot path. Store failures carry their own.
    trace: false,
  })
  // A connection emits 'error' when it dies while idle in the pool (server restart, KILL,
  // wait_timeout); mysql2's own listener on pooled connections fires once, and a second event
  // with no listener would crash the process. The pool has dropped the connection already.
  pool.on('connection', (connection: { on(event: 'error', listener: () => void): unknown }) => {
    connection.on('error', () => undefined)
  })
  return new MysqlPool(pool, {
    owned: true,
    session: new SessionSetup(options.idleTransactionTimeoutS),
    readCommittedTransactions: false,
  })
}
