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
  await client.query('COMMIT')
  await client.query(
    `ANALYZE ${t('cairn_runs')}, ${t('cairn_search_attributes')}, ${t('cairn_checkpoints')}`,
  )
}

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += CHUNK) yield rows.slice(i, i + CHUNK)
}

/** Column arrays of `rows`, one per field, in order (what `unnest` takes). */
function columns<T>(rows: readonly T[], fields: ReadonlyArray<keyof T>): unknown[][] {
  return fields.map((field) => rows.map((row) => row[field]))
}
