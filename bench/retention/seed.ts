/**
 * N finished runs written with set-based SQL straight into a store's migrated tables (the
 * store's own column lists, packages/sql/src/<dialect>/schema.sql): generate_series on
 * Postgres, a recursive CTE on SQLite, the SEQUENCE engine's seq_<lo>_to_<hi> on MariaDB, in
 * statements of CHUNK runs each (one transaction per chunk). The same deterministic plan on
 * every server, run i (0-based, key i + 1):
 *
 * - `completed`, created between 400 and 35 days ago in creation order (ids are UUIDv7-shaped
 *   from created_at, so they sort like it, as the engine's do), 10 workflows, version 1;
 * - finished 0–10 min after it was created (so finish order is creation order with local
 *   jitter); one run in 20 is a parent that ran 10–20 min, and the run after it its child
 *   (parent_run_id, finished 1 s after it started, before its parent);
 * - 2 or 3 checkpoints (2.5 on average), small JSON outputs like the standard workload's;
 * - a `customer` search attribute on one run in three, the tag `eu` on one in ten (the runs'
 *   `tags` column and cairn_run_tags).
 *
 * Every seeded run is older than 7 days: a `maxAge: '7 days'` policy expires all of them and
 * none of the runs the workload completes meanwhile.
 */
import type { DatabaseSync } from 'node:sqlite'
import type pg from 'pg'
import type mysql from 'mysql2/promise'

const DAY = 86_400_000
/** Runs per INSERT statement. */
const CHUNK = 50_000

export interface SeedCounts {
  runs: number
  checkpoints: number
  attributes: number
  tags: number
  children: number
}

/** What the plan writes for `n` runs. */
export function seedCounts(n: number): SeedCounts {
  const count = (pred: (i: number) => boolean) => {
    let c = 0
    for (let i = 0; i < n; i++) if (pred(i)) c++
    return c
  }
  return {
    runs: n,
    checkpoints: 2 * n + count((i) => i % 2 === 1),
    attributes: count((i) => i % 3 === 0),
    tags: count((i) => i % 10 === 0),
    children: count((i) => i % 20 === 1),
  }
}

/** SQL spellings that differ between the three servers. */
interface Spelling {
  cat(...parts: string[]): string
  /** `x` (a non-negative integer) as 12 lower-case hex digits. */
  hex12(x: string): string
  /** `x` (0..4095) as 3 hex digits. */
  hex3(x: string): string
  /** The generated integers [lo, hi] as column `i` of `FROM …`. */
  series(lo: number, hi: number): string
}

const POSTGRES: Spelling = {
  cat: (...parts) => `(${parts.map((p) => `(${p})`).join(' || ')})`,
  hex12: (x) => `lpad(to_hex(${x}), 12, '0')`,
  hex3: (x) => `lpad(to_hex(${x}), 3, '0')`,
  series: (lo, hi) => `generate_series(${lo}::bigint, ${hi}::bigint) AS g(i)`,
}
const SQLITE: Spelling = {
  cat: (...parts) => `(${parts.map((p) => `(${p})`).join(' || ')})`,
  hex12: (x) => `printf('%012x', ${x})`,
  hex3: (x) => `printf('%03x', ${x})`,
  series: () => 's AS g', // the recursive CTE `s(i)` the statement declares
}
const MARIADB: Spelling = {
  cat: (...parts) => `concat(${parts.join(', ')})`,
  hex12: (x) => `lpad(lower(hex(${x})), 12, '0')`,
  hex3: (x) => `lpad(lower(hex(${x})), 3, '0')`,
  series: (lo, hi) => `(SELECT seq AS i FROM seq_${lo}_to_${hi}) AS g`,
}

/** The expressions of run `i` (an integer column expression), shared by every server. */
function runExpressions(sp: Spelling, n: number, now: number, i: string) {
  const base = now - 400 * DAY
  const stepMs = Math.max(1, Math.floor((365 * DAY) / n))
  const created = (x: string) => `(${base} + (${x}) * ${stepMs})`
  const id = (x: string) =>
    sp.cat(
      `substr(${sp.hex12(created(x))}, 1, 8)`,
      `'-'`,
      `substr(${sp.hex12(created(x))}, 9, 4)`,
      `'-7'`,
      sp.hex3(`(${x}) % 4096`),
      `'-8'`,
      sp.hex3(`((${x}) * 40503) % 4096`),
      `'-'`,
      sp.hex12(`((${x}) * 2654435761) % 281474976710656`),
    )
  const duration = `CASE WHEN ${i} % 20 = 0 THEN 600000 + (${i} * 7919) % 600000
      WHEN ${i} % 20 = 1 THEN 1000 ELSE (${i} * 7919) % 600000 END`
  return {
    key: `${i} + 1`,
    id: id(i),
    parentId: `CASE WHEN ${i} % 20 = 1 THEN ${id(`${i} - 1`)} END`,
    created: created(i),
    finished: `${created(i)} + ${duration}`,
    workflow: sp.cat(`'wf-'`, `${i} % 10`),
    steps: `2 + ${i} % 2`,
    input: sp.cat(`'{"id":'`, i, `',"steps":'`, `2 + ${i} % 2`, `'}'`),
    output: sp.cat(`'{"ok":true,"total":'`, i, `'}'`),
    tags: `CASE WHEN ${i} % 10 = 0 THEN '["eu"]' END`,
    customer: sp.cat(`'c-'`, `${i} % 5000`),
  }
}

/** The INSERT … SELECT statements of runs [lo, hi], in dependency order. */
function chunkStatements(
  sp: Spelling,
  t: (table: string) => string,
  n: number,
  now: number,
  lo: number,
  hi: number,
  keyColumn: string,
  overriding: string,
): string[] {
  const r = runExpressions(sp, n, now, 'g.i')
  const series = sp.series(lo, hi)
  return [
    `INSERT INTO ${t('cairn_runs')} (${keyColumn}, id, workflow, version, status, input, output, error,
       park_reason, waiting_on, created_at, updated_at, finished_at, available_at, lease_owner,
       lease_epoch, turns, inbox_seq, parent_run_id, parent_seq, tags, priority, recoveries)
     ${overriding}
     SELECT ${r.key}, ${r.id}, ${r.workflow}, '1', 'completed', ${r.input}, ${r.output}, NULL,
       NULL, NULL, ${r.created}, ${r.finished}, ${r.finished}, NULL, NULL,
       1, 1, 0, ${r.parentId}, CASE WHEN g.i % 20 = 1 THEN 1 END, ${r.tags}, 0, 0
     FROM ${series}`,
    // 2 or 3 per run: seq 0..steps-1.
    `INSERT INTO ${t('cairn_checkpoints')} (run_key, seq, name, kind, status, attempts, delivery_order,
       output, error, wake_at, started_at, updated_at, input, worker)
     SELECT ${r.key}, c.seq, ${sp.cat(`'step-'`, 'c.seq')}, 'local', 'completed', 1, c.seq,
       ${sp.cat(`'{"i":'`, 'c.seq', `',"ok":true,"v":'`, 'g.i', `'}'`)}, NULL, NULL,
       ${r.created} + c.seq * 10, ${r.created} + c.seq * 10 + 5, NULL, NULL
     FROM ${series} CROSS JOIN (SELECT 0 AS seq UNION ALL SELECT 1 UNION ALL SELECT 2) c
     WHERE c.seq < ${r.steps}`,
    `INSERT INTO ${t('cairn_search_attributes')} (run_key, name, type, text_value, number_value)
     SELECT ${r.key}, 'customer', 'text', ${r.customer}, NULL FROM ${series} WHERE g.i % 3 = 0`,
    `INSERT INTO ${t('cairn_run_tags')} (tag, run_created_at, run_id, run_key)
     SELECT 'eu', ${r.created}, ${r.id}, ${r.key} FROM ${series} WHERE g.i % 10 = 0`,
  ]
}

function* chunks(n: number): Generator<[number, number]> {
  for (let lo = 0; lo < n; lo += CHUNK) yield [lo, Math.min(n, lo + CHUNK) - 1]
}

/** Into a migrated, empty Postgres schema; then the identity past the seeded keys, VACUUM ANALYZE. */
export async function seedPostgres(
  client: pg.Client,
  schema: string,
  n: number,
  now: number,
  progress?: (done: number) => void,
): Promise<void> {
  const t = (table: string) => `"${schema}".${table}`
  for (const [lo, hi] of chunks(n)) {
    await client.query('BEGIN')
    for (const text of chunkStatements(
      POSTGRES,
      t,
      n,
      now,
      lo,
      hi,
      'key',
      'OVERRIDING SYSTEM VALUE',
    ))
      await client.query(text)
    await client.query('COMMIT')
    progress?.(hi + 1)
  }
  await client.query(`SELECT setval(pg_get_serial_sequence($1, 'key'), $2)`, [
    t('cairn_runs'),
    Math.max(1, n),
  ])
  // What a long-lived database has: statistics, and old rows vacuumed (all-visible).
  await client.query(
    `VACUUM (ANALYZE) ${['cairn_runs', 'cairn_checkpoints', 'cairn_search_attributes', 'cairn_run_tags'].map(t).join(', ')}`,
  )
}

/** Into a migrated, empty SQLite file (WAL): one transaction per chunk; then ANALYZE. */
export function seedSqlite(
  db: DatabaseSync,
  n: number,
  now: number,
  progress?: (done: number) => void,
): void {
  for (const [lo, hi] of chunks(n)) {
    db.exec('BEGIN IMMEDIATE')
    for (const text of chunkStatements(SQLITE, (x) => x, n, now, lo, hi, 'key', ''))
      db.exec(
        `WITH RECURSIVE s(i) AS (SELECT ${lo} UNION ALL SELECT i + 1 FROM s WHERE i < ${hi}) ${text}`,
      )
    db.exec('COMMIT')
    progress?.(hi + 1)
  }
  db.exec('ANALYZE')
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
}

/** Into a migrated, empty MariaDB database (SEQUENCE engine); then ANALYZE TABLE. */
export async function seedMariadb(
  conn: mysql.Connection,
  n: number,
  now: number,
  progress?: (done: number) => void,
): Promise<void> {
  for (const [lo, hi] of chunks(n)) {
    await conn.query('START TRANSACTION')
    for (const text of chunkStatements(MARIADB, (x) => x, n, now, lo, hi, '`key`', ''))
      await conn.query(text)
    await conn.query('COMMIT')
    progress?.(hi + 1)
  }
  await conn.query(
    'ANALYZE TABLE cairn_runs, cairn_checkpoints, cairn_search_attributes, cairn_run_tags',
  )
}
