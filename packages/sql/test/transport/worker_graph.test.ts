/**
 * A db-transport worker loads no store: a fresh process that imports @cairn/worker and
 * @cairn/sql/transport and opens a worker half on Postgres and on SQLite resolves no module of
 * core's engine or stores and none of @cairn/sql's store code — only the transport's files and
 * the one driver it opened. Recorded by a resolve hook in a child process.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PG_URL, serviceAvailable } from '../../../../tests/helpers/services.ts'
import { dropPostgresSchema } from '../../../../tests/helpers/stores.ts'

const PROBE = `
import { registerHooks } from 'node:module'
const seen = []
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context)
    seen.push(resolved.url)
    return resolved
  },
})
const [pgUrl, schema, path] = process.argv.slice(1)
await import('@cairn/worker')
const { postgresTransport, sqliteTransport } = await import('@cairn/sql/transport')
const halves = [sqliteTransport({ path }).worker()]
if (pgUrl !== '') halves.push(postgresTransport({ connectionString: pgUrl, schema }).worker())
for (const half of halves) {
  await half.open()
  await half.close()
}
process.stdout.write(JSON.stringify(seen))
`

const FORBIDDEN = [
  /\/packages\/core\/src\/(store|engine|search)\//,
  /\/packages\/core\/src\/store_kit\.ts$/,
  /\/packages\/core\/src\/index\.ts$/,
  /\/packages\/core\/src\/execution\/(?!types\.ts)/,
  /\/packages\/sql\/src\/(shared|sqlite|mysql|knex)\//,
  /\/packages\/sql\/src\/postgres\/(?!wake_listener\.ts)/,
  /\/node_modules\/(mysql2|knex|better-sqlite3)\//,
]

void test('a db-transport worker loads no engine or store module, only the transport and its driver', async (t) => {
  const pgUp = await serviceAvailable('postgres')
  const schema = `cairn_tg_${randomBytes(6).toString('hex')}`
  const dir = mkdtempSync(join(tmpdir(), 'cairn-graph-'))
  t.after(async () => {
    rmSync(dir, { recursive: true, force: true })
    if (pgUp) await dropPostgresSchema(schema)
  })
  const output = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pgUp ? PG_URL : '', schema, join(dir, 'cairn.db')],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '--conditions=cairn-source' } },
  )
  const urls = JSON.parse(output) as string[]
  for (const expected of [
    '/packages/sql/src/transport/worker_half.ts',
    '/packages/sql/src/transport/sqlite_tables.ts',
  ])
    assert.ok(
      urls.some((url) => url.endsWith(expected)),
      `the probe did not load ${expected}`,
    )
  if (pgUp)
    assert.ok(
      urls.some((url) => url.endsWith('/packages/sql/src/transport/postgres_tables.ts')),
      'the probe did not open the Postgres half',
    )
  const loaded = urls.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)))
  assert.deepEqual(loaded, [], 'a db-transport worker must not load these')
})
