/**
 * Writes the seed plan into a Postgres schema the store has migrated, straight into the
 * store's tables: chunks of rows sent as arrays and inserted with `unnest` (one statement per
 * 5,000 rows), then ANALYZE — what autovacuum does to a table that grew this much.
 */
import type pg from 'pg'
import type { AttributeRow, CheckpointRow, RunRow } from './seed_plan.ts'

const CHUNK = 5_000

export async function seedPostgres(
  client: pg.Client,
  schema: string,
  plan: { runs: RunRow[]; attributes: AttributeRow[]; checkpoints: CheckpointRow[] },
): Promise<void> {
  const t = (name: string) => `"${schema}".${name}`
  const tagged = await hasTagTable(client, schema)
  await client.query('BEGIN')
  for (const rows of chunks(plan.runs))
    await client.query(
      `INSERT INTO ${t('cairn_runs')} (id, workflow, version, status, input, output, error, park_reason, waiting_on,
         created_at, updated_at, finished_at, available_at, lease_owner, lease_epoch, turns)
       SELECT id, workflow, version, status, input, output, error, park_reason, waiting_on,
         created_at, updated_at, finished_at, available_at, lease_owner, 1, turns
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::text[], $15::bigint[])
         AS r(id, workflow, version, status, input, output, error, park_reason, waiting_on,
           created_at, updated_at, finished_at, available_at, lease_owner, turns)
       ORDER BY created_at`,
      columns(rows, [
        'id',
        'workflow',
        'version',
        'status',
        'input',
        'output',
        'error',
        'parkReason',
        'waitingOn',
        'createdAt',
        'updatedAt',
        'finishedAt',
        'availableAt',
        'leaseOwner',
        'turns',
      ]),
    )
  for (const rows of chunks(plan.attributes))
    await client.query(
      `INSERT INTO ${t('cairn_search_attributes')} (run_key, name, type, text_value, number_value)
       SELECT runs.key, a.name, a.type, a.text, a.number
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[]) AS a(run_id, name, type, text, number)
       JOIN ${t('cairn_runs')} runs ON runs.id = a.run_id`,
      columns(rows, ['runId', 'name', 'type', 'text', 'number']),
    )
  for (const rows of chunks(plan.checkpoints))
    await client.query(
      `INSERT INTO ${t('cairn_checkpoints')} (run_key, seq, name, kind, status, attempts, delivery_order, output, error, started_at, updated_at)
       SELECT runs.key, c.seq, c.name, 'local', c.status, 1, c.seq, c.output, c.error, c.started_at, c.updated_at
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
         AS c(run_id, seq, name, status, output, error, started_at, updated_at)
       JOIN ${t('cairn_runs')} runs ON runs.id = c.run_id`,
      columns(rows, [
        'runId',
        'seq',
        'name',
        'status',
        'output',
        'error',
        'startedAt',
        'updatedAt',
      ]),
    )
  if (tagged) await insertTags(client, schema, plan.runs)
  await client.query('COMMIT')
  const analyzed = ['cairn_runs', 'cairn_search_attributes', 'cairn_checkpoints']
  if (tagged) analyzed.push('cairn_run_tags')
  await client.query(`ANALYZE ${analyzed.map(t).join(', ')}`)
}

/** Whether the store has run tags (migration 007): then runs carry tags too. */
async function hasTagTable(client: pg.Client, schema: string): Promise<boolean> {
  const found = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [
    `"${schema}".cairn_run_tags`,
  ])
  return (found.rows[0] as { present: boolean }).present
}

/** The runs' `tags` column (a JSON array) and the tag table that serves `listRuns({ tag })`. */
async function insertTags(
  client: pg.Client,
  schema: string,
  runs: readonly RunRow[],
): Promise<void> {
  const tagged = runs.filter((r) => r.tags.length > 0)
  const runsTable = `"${schema}".cairn_runs`
  for (const rows of chunks(tagged)) {
    await client.query(
      `UPDATE ${runsTable} runs SET tags = v.tags FROM unnest($1::text[], $2::text[]) AS v(id, tags)
       WHERE runs.id = v.id`,
      [rows.map((r) => r.id), rows.map((r) => JSON.stringify(r.tags))],
    )
    const pairs = rows.flatMap((r) => r.tags.map((tag) => [r.id, tag] as const))
    await client.query(
      `INSERT INTO "${schema}".cairn_run_tags (tag, run_created_at, run_id, run_key)
       SELECT v.tag, runs.created_at, runs.id, runs.key
       FROM unnest($1::text[], $2::text[]) AS v(run_id, tag) JOIN ${runsTable} runs ON runs.id = v.run_id`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    )
  }
}

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += CHUNK) yield rows.slice(i, i + CHUNK)
}

/** Column arrays of `rows`, one per field, in order (what `unnest` takes). */
function columns<T>(rows: readonly T[], fields: ReadonlyArray<keyof T>): unknown[][] {
  return fields.map((field) => rows.map((row) => row[field]))
}
