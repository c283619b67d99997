/**
 * `npm run bench -- --suite retention-plans` (on request; issue 16): the query plans of the
 * statements the Postgres and MariaDB stores issue for retention, on RETENTION_PLAN_RUNS
 * (default 200,000) seeded runs (seed.ts, plus some failed and waiting runs, inbox messages,
 * event waits and queue items so every table the deletion touches has rows), analyzed.
 *
 * The statements are not retyped: the store's own calls run (retentionCutoff, expiredRuns,
 * deleteRunTrees) with its pool wrapped to record each statement it sends — deleteRunTrees's
 * transaction rolled back instead of committed — and each recorded statement is then
 * explained with its own values, DELETEs inside a transaction rolled back afterwards:
 * - Postgres: EXPLAIN (ANALYZE, BUFFERS) with the values bound (the custom plan), and the
 *   generic plan the server may switch to for the store's named prepared statements
 *   (plan_cache_mode = force_generic_plan, PREPARE, EXPLAIN (ANALYZE, BUFFERS) EXECUTE);
 * - MariaDB: EXPLAIN, and ANALYZE FORMAT=JSON (rows read, time).
 * Last, the oldest half of the runs is deleted without VACUUM and the first page (no `after`)
 * explained again: what a sweep's first page walks over before the dead rows are vacuumed.
 * Prints every plan, then one summary line per statement; a full scan of a table is flagged.
 */
import mysql from 'mysql2/promise'
import type pg from 'pg'
import type {
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  StateStore,
} from '@cairn/core/contracts'
import type { SqlPool, SqlSession, SqlStatement } from '../../packages/sql/src/shared/driver.ts'
import { poolOfStore as mysqlPools } from '../../packages/sql/src/mysql/debug_access.ts'
import { statementText } from '../../packages/sql/src/mysql/statement_text.ts'
import { poolOfStore as postgresPools } from '../../packages/sql/src/postgres/debug_access.ts'
import { MYSQL_URL, mysqlAvailable, withScratchDatabase } from '../mysql_service.ts'
import { PG_URL, postgresAvailable, withClient, withScratchSchema } from '../postgres_service.ts'
import { seedMariadb, seedPostgres } from './seed.ts'

const DAY = 86_400_000
const RUNS = Number(process.env.RETENTION_PLAN_RUNS ?? 200_000)

interface Captured {
  label: string
  statement: SqlStatement
}

interface Summary {
  server: string
  label: string
  /** One entry per table access: how, through which index, rows. */
  access: string[]
  ms: number
  fullScan: boolean
}

export async function runRetentionPlans(options: { json: boolean }): Promise<void> {
  const summaries: Summary[] = []
  if (await postgresAvailable(false)) summaries.push(...(await onPostgres()))
  if (await mysqlAvailable(false)) summaries.push(...(await onMariadb()))
  if (options.json) {
    for (const s of summaries) console.log(JSON.stringify({ suite: 'retention-plans', ...s }))
    return
  }
  console.log(`\n== summary (${RUNS.toLocaleString('en-US')} seeded runs) ==`)
  for (const s of summaries)
    console.log(
      `${s.fullScan ? '!! FULL SCAN ' : ''}${s.server} | ${s.label} | ${s.access.join('; ')} | ${s.ms} ms`,
    )
}

/** The store calls whose statements are explained, in order, each with a label. */
async function capture(store: StateStore, pool: SqlPool, now: number, middle: FinishedPosition) {
  const captured: Captured[] = []
  let label = ''
  const record = (statement: SqlStatement) => captured.push({ label, statement })
  const query = pool.query.bind(pool)
  const transaction = pool.transaction.bind(pool)
  const wrap = (session: SqlSession): SqlSession => ({
    query: (statement) => {
      record(statement)
      return session.query(statement)
    },
  })
  const rollback = new Error('rolled back by the plans bench')
  Object.assign(pool, {
    query: (statement: SqlStatement) => {
      record(statement)
      return query(statement)
    },
    transaction: async <T>(body: (session: SqlSession) => Promise<T>): Promise<T> => {
      let result: T | undefined
      try {
        await transaction(async (session) => {
          result = await body(wrap(session))
          throw rollback // nothing the deletion did stays: every statement is explained on the full tables
        })
      } catch (error) {
        if (error !== rollback) throw error
      }
      return result as T
    },
  })
  const before = { finishedAt: now - 7 * DAY, runId: '' }
  const cutoffs: [string, RetentionCutoffQuery][] = [
    ['retentionCutoff completed keepNewest=1000', { statuses: ['completed'], keepNewest: 1000 }],
    [
      'retentionCutoff completed+failed keepNewest=1000',
      { statuses: ['completed', 'failed'], keepNewest: 1000 },
    ],
    [
      'retentionCutoff workflow=wf-3 completed keepNewest=1000',
      { statuses: ['completed'], workflow: 'wf-3', keepNewest: 1000 },
    ],
    [
      'retentionCutoff completed keepNewest=100000',
      { statuses: ['completed'], keepNewest: 100_000 },
    ],
  ]
  for (const [name, q] of cutoffs) {
    label = name
    await store.retentionCutoff(q)
  }
  const pages: [string, ExpiredRunsQuery][] = [
    ['expiredRuns completed (first page)', { statuses: ['completed'], before, limit: 100 }],
    [
      'expiredRuns completed after=…',
      { statuses: ['completed'], before, after: middle, limit: 100 },
    ],
    [
      'expiredRuns completed+failed (first page)',
      { statuses: ['completed', 'failed'], before, limit: 100 },
    ],
    [
      'expiredRuns completed+failed after=…',
      { statuses: ['completed', 'failed'], before, after: middle, limit: 100 },
    ],
    [
      'expiredRuns workflow=wf-3 completed after=…',
      { statuses: ['completed'], workflow: 'wf-3', before, after: middle, limit: 100 },
    ],
  ]
  for (const [name, q] of pages) {
    label = name
    await store.expiredRuns(q)
  }
  label = 'setup'
  const roots = await store.expiredRuns({
    statuses: ['completed'],
    before,
    after: middle,
    limit: 100,
  })
  captured.splice(captured.length - 1, 1)
  label = 'deleteRunTrees'
  const result = await store.deleteRunTrees({ runIds: roots.map((r) => r.runId), maxRuns: 1000 })
  // A child whose parent is in the same page goes with the parent's tree (then `not_found`).
  const kept = result.trees.filter((t) => t.outcome !== 'deleted' && t.outcome !== 'not_found')
  if (kept.length > 0) throw new Error(`deleteRunTrees kept ${JSON.stringify(kept)}`)
  Object.assign(pool, { query, transaction })
  return captured.map((c) =>
    c.label === 'deleteRunTrees' ? { ...c, label: deletionLabel(c.statement.text) } : c,
  )
}

/** What a statement of deleteRunTrees is, from its text. */
function deletionLabel(text: string): string {
  const flat = text.replace(/\s+/g, ' ')
  const table =
    /DELETE FROM \S*?(cairn_(?:runs|checkpoints|messages|search_attributes|queue_items|event_waits|run_tags|step_logs))\b/.exec(
      flat,
    )?.[1] ?? '?'
  if (flat.startsWith('SELECT r.parent_run_id')) return "tree walk: roots' parent ids (no lock)"
  if (flat.startsWith('SELECT'))
    return /parent_run_id (?:=|IN)/.test(flat)
      ? 'tree walk: children by parent_run_id FOR UPDATE'
      : 'tree walk: runs by id FOR UPDATE'
  return `DELETE ${table}`
}

async function middlePosition(
  select: (text: string) => Promise<unknown[]>,
  runs: string,
): Promise<FinishedPosition> {
  const row = (await select(
    `SELECT finished_at, id FROM ${runs} WHERE status = 'completed' AND finished_at IS NOT NULL
     ORDER BY finished_at, id LIMIT 1 OFFSET ${Math.floor(RUNS / 2)}`,
  )) as [unknown, unknown]
  return { finishedAt: Number(row[0]), runId: String(row[1]) }
}

/** The tables whose rows hang off a run by `run_key` (the "oldest half deleted" setup). */
const KEYED_BY_RUN = [
  'cairn_checkpoints',
  'cairn_search_attributes',
  'cairn_messages',
  'cairn_queue_items',
  'cairn_run_tags',
  'cairn_step_logs',
]

/** A step log record as the stores write it (one line), for the rows extraRows seeds. */
const STEP_LOG_RECORD = JSON.stringify({
  entries: [{ i: 0, at: 1, level: 'info', attempt: 1, message: 'charged' }],
  dropped: 0,
  progress: null,
  marks: [['e1a1', 0, -1]],
})

/**
 * Statuses and rows beyond the purge bench's seed, so the plans see realistic tables: one run
 * in 20 failed, one in 100 waiting (unfinished, with an event wait and a queue item), step logs
 * on one in ten, an inbox message on one in five.
 */
function extraRows(
  t: (table: string) => string,
  key: string,
  cat: (...p: string[]) => string,
): string[] {
  return [
    `UPDATE ${t('cairn_runs')} SET status = 'failed', output = NULL, error = '{"message":"boom"}' WHERE ${key} % 20 = 7`,
    `UPDATE ${t('cairn_runs')} SET status = 'waiting', finished_at = NULL, output = NULL WHERE ${key} % 100 = 3`,
    `INSERT INTO ${t('cairn_messages')} (run_key, seq, kind, name, dedupe_id, payload, accepted_at, consumed_at)
     SELECT ${key}, 1, 'signal', 'go', NULL, '{}', created_at, finished_at FROM ${t('cairn_runs')} WHERE ${key} % 5 = 0`,
    `INSERT INTO ${t('cairn_event_waits')} (run_id, seq, name, match_json, started_at)
     SELECT id, 2, ${cat(`'order-'`, `${key} % 50`)}, NULL, created_at FROM ${t('cairn_runs')} WHERE status = 'waiting'`,
    `INSERT INTO ${t('cairn_queue_items')} (queue, run_key, seq, attempt, priority, fairness_key, item_order, enqueued_at, granted)
     SELECT 'carrier', ${key}, 2, 1, 0, '', ${key}, created_at, 0 FROM ${t('cairn_runs')} WHERE status = 'waiting'`,
    `INSERT INTO ${t('cairn_step_logs')} (run_key, seq, logs, updated_at)
     SELECT ${key}, 1, '${STEP_LOG_RECORD}', created_at FROM ${t('cairn_runs')} WHERE ${key} % 10 = 1`,
  ]
}

// ---------------------------------------------------------------- Postgres

async function onPostgres(): Promise<Summary[]> {
  return withScratchSchema('cairn_bench_plans', async (schema) => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    const t = (table: string) => `"${schema}".${table}`
    const store = new PostgresStore({ connectionString: PG_URL, schema })
    await store.open()
    const pool = postgresPools.get(store) as SqlPool
    const now = Date.now()
    console.log(`\n== Postgres: seeding ${RUNS} runs ==`)
    return withClient(PG_URL, async (client) => {
      await seedPostgres(client, schema, RUNS, now)
      for (const text of extraRows(t, 'key', (...p) => `(${p.map((x) => `(${x})`).join(' || ')})`))
        await client.query(text)
      const all = ['cairn_runs', 'cairn_checkpoints', 'cairn_search_attributes', 'cairn_run_tags']
      const extra = ['cairn_messages', 'cairn_event_waits', 'cairn_queue_items', 'cairn_step_logs']
      await client.query(`VACUUM (ANALYZE) ${[...all, ...extra].map(t).join(', ')}`)
      const middle = await middlePosition(
        async (text) => (await client.query({ text, rowMode: 'array' })).rows[0] as unknown[],
        t('cairn_runs'),
      )
      const captured = await capture(store, pool, now, middle)
      const out: Summary[] = []
      for (const c of captured) out.push(...(await explainPostgres(client, c)))
      // The oldest half gone, not vacuumed (autovacuum may be off, or not there yet).
      await client.query('BEGIN')
      for (const table of KEYED_BY_RUN)
        await client.query(`DELETE FROM ${t(table)} WHERE run_key <= ${Math.floor(RUNS / 2)}`)
      await client.query(`DELETE FROM ${t('cairn_runs')} WHERE key <= ${Math.floor(RUNS / 2)}`)
      await client.query('COMMIT')
      const first = captured.find(
        (c) => c.label === 'expiredRuns completed (first page)',
      ) as Captured
      for (const visit of ['1st', '2nd'])
        out.push(
          ...(await explainPostgres(client, {
            ...first,
            label: `${first.label}, oldest half deleted, not vacuumed (${visit} look)`,
          })),
        )
      await store.close()
      return out
    })
  })
}

interface PgNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows'?: number
  'Actual Loops'?: number
  'Rows Removed by Filter'?: number
  'Shared Hit Blocks'?: number
  'Shared Read Blocks'?: number
  Plans?: PgNode[]
}

async function explainPostgres(client: pg.Client, c: Captured): Promise<Summary[]> {
  const { text, values } = c.statement
  const flat = text.replace(/\s+/g, ' ').trim()
  console.log(`\n--- ${c.label}\n${flat}`)
  const out: Summary[] = []
  // Custom plan: the values bound.
  // Each EXPLAIN ANALYZE in a transaction of its own, rolled back: each sees every row.
  const custom = {
    shown: await inRollback(client, () =>
      client.query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${text}`, values: values as unknown[] }),
    ),
    json: await inRollback(client, () =>
      client.query({
        text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
        values: values as unknown[],
      }),
    ),
  }
  console.log('custom plan:')
  for (const row of custom.shown.rows as { 'QUERY PLAN': string }[])
    console.log(`  ${row['QUERY PLAN']}`)
  out.push(pgSummary(`${c.label}`, custom.json.rows[0] as Record<string, unknown>))
  // Generic plan: what a named prepared statement may switch to after five executions.
  if (values.length > 0) {
    const literals = values.map((v) => pgLiteral(client, v)).join(', ')
    await client.query(`PREPARE retention_plan AS ${text}`)
    await client.query('SET plan_cache_mode = force_generic_plan')
    let generic
    try {
      generic = {
        shown: await inRollback(client, () =>
          client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE retention_plan(${literals})`),
        ),
        json: await inRollback(client, () =>
          client.query(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE retention_plan(${literals})`,
          ),
        ),
      }
    } finally {
      await client.query('RESET plan_cache_mode')
      await client.query('DEALLOCATE retention_plan')
    }
    console.log('generic plan:')
    for (const row of generic.shown.rows as { 'QUERY PLAN': string }[])
      console.log(`  ${row['QUERY PLAN']}`)
    out.push(pgSummary(`${c.label} [generic]`, generic.json.rows[0] as Record<string, unknown>))
  }
  return out
}

async function inRollback<T>(client: pg.Client, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN')
  try {
    return await body()
  } finally {
    await client.query('ROLLBACK')
  }
}

function pgLiteral(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (Array.isArray(value))
    return client.escapeLiteral(
      `{${value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`,
    )
  return client.escapeLiteral(String(value))
}

function pgSummary(label: string, row: Record<string, unknown>): Summary {
  const plan = (row['QUERY PLAN'] as { Plan: PgNode; 'Execution Time': number }[])[0] as {
    Plan: PgNode
    'Execution Time': number
  }
  const access: string[] = []
  let fullScan = false
  const walk = (node: PgNode) => {
    if (node['Relation Name'] !== undefined) {
      const rows = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1)
      const index = node['Index Name'] === undefined ? '' : ` ${node['Index Name']}`
      const removed = node['Rows Removed by Filter']
        ? `, ${node['Rows Removed by Filter']} filtered`
        : ''
      const buffers = (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0)
      access.push(
        `${node['Node Type']}${index} on ${node['Relation Name']}: ${rows} rows${removed}, ${buffers} buf`,
      )
      if (node['Node Type'] === 'Seq Scan') fullScan = true
    }
    for (const child of node.Plans ?? []) walk(child)
  }
  walk(plan.Plan)
  return {
    server: 'postgres',
    label,
    access,
    ms: Math.round(plan['Execution Time'] * 1000) / 1000,
    fullScan,
  }
}

// ---------------------------------------------------------------- MariaDB

async function onMariadb(): Promise<Summary[]> {
  return withScratchDatabase('cairn_bench_plans', async (database) => {
    const { MysqlStore } = await import('@cairn/sql/mysql')
    const store = new MysqlStore({ uri: MYSQL_URL, database })
    await store.open()
    const pool = mysqlPools.get(store) as SqlPool
    const conn = await mysql.createConnection({ uri: MYSQL_URL, database })
    try {
      const now = Date.now()
      console.log(`\n== MariaDB: seeding ${RUNS} runs ==`)
      await seedMariadb(conn, RUNS, now)
      for (const text of extraRows(
        (x) => x,
        '`key`',
        (...p) => `concat(${p.join(', ')})`,
      ))
        await conn.query(text)
      await conn.query(
        'ANALYZE TABLE cairn_runs, cairn_checkpoints, cairn_search_attributes, cairn_run_tags, cairn_messages, cairn_event_waits, cairn_queue_items, cairn_step_logs',
      )
      const middle = await middlePosition(async (text) => {
        const [rows] = await conn.query({ sql: text, rowsAsArray: true })
        const row = (rows as unknown[][])[0] as unknown[]
        return [row[0], Buffer.isBuffer(row[1]) ? row[1].toString() : row[1]]
      }, 'cairn_runs')
      const captured = await capture(store, pool, now, middle)
      const out: Summary[] = []
      for (const c of captured) out.push(await explainMariadb(conn, c))
      await conn.query('START TRANSACTION')
      for (const table of KEYED_BY_RUN)
        await conn.query(`DELETE FROM ${table} WHERE run_key <= ${Math.floor(RUNS / 2)}`)
      await conn.query(`DELETE FROM cairn_runs WHERE \`key\` <= ${Math.floor(RUNS / 2)}`)
      await conn.query('COMMIT')
      const first = captured.find(
        (c) => c.label === 'expiredRuns completed (first page)',
      ) as Captured
      out.push(
        await explainMariadb(conn, { ...first, label: `${first.label}, oldest half deleted` }),
      )
      return out
    } finally {
      await conn.end()
      await store.close()
    }
  })
}

interface MyTable {
  table_name?: string
  access_type?: string
  key?: string
  rows?: number
  r_rows?: number
  r_total_time_ms?: number
  filtered?: number
  r_filtered?: number
  r_icp_filtered?: number
}

async function explainMariadb(conn: mysql.Connection, c: Captured): Promise<Summary> {
  const sql = statementText(c.statement)
  console.log(`\n--- ${c.label}\n${sql.replace(/\s+/g, ' ').trim().slice(0, 2000)}`)
  const [explain] = await conn.query(`EXPLAIN ${sql}`)
  console.log('EXPLAIN:')
  for (const row of explain as Record<string, unknown>[])
    console.log(
      `  ${['id', 'select_type', 'table', 'type', 'key', 'key_len', 'rows', 'Extra'].map((k) => `${k}=${String(row[k])}`).join(' ')}`,
    )
  await conn.query('START TRANSACTION')
  let analyzed: { query_block: Record<string, unknown> }
  try {
    const [rows] = await conn.query(`ANALYZE FORMAT=JSON ${sql}`)
    const first = (rows as Record<string, unknown>[])[0] as Record<string, unknown>
    analyzed = JSON.parse(String(Object.values(first)[0])) as typeof analyzed
  } finally {
    await conn.query('ROLLBACK')
  }
  const tables: MyTable[] = []
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk)
    if (node === null || typeof node !== 'object') return
    const o = node as Record<string, unknown>
    if (typeof o.table_name === 'string' && typeof o.access_type === 'string')
      tables.push(o as MyTable)
    for (const value of Object.values(o)) walk(value)
  }
  walk(analyzed)
  const access = tables.map(
    (t) =>
      `${t.access_type}${t.key ? ` ${t.key}` : ''} on ${t.table_name}: est ${t.rows ?? '-'} rows, read ${t.r_rows ?? '-'}${t.r_icp_filtered !== undefined && t.r_icp_filtered < 100 ? ` (ICP kept ${t.r_icp_filtered}%)` : ''}${t.r_filtered !== undefined && t.r_filtered < 100 ? ` (${Math.round(t.r_filtered)}% kept)` : ''}`,
  )
  console.log(`ANALYZE: ${access.join('; ')}; ${String(analyzed.query_block.r_total_time_ms)} ms`)
  console.log(`ANALYZE FORMAT=JSON: ${JSON.stringify(analyzed)}`)
  const big = new Set([
    'cairn_runs',
    'cairn_checkpoints',
    'cairn_search_attributes',
    'cairn_run_tags',
    'cairn_messages',
  ])
  return {
    server: 'mariadb',
    label: c.label,
    access,
    ms: Math.round(Number(analyzed.query_block.r_total_time_ms) * 1000) / 1000,
    fullScan: tables.some((t) => t.access_type === 'ALL' && big.has(String(t.table_name))),
  }
}
