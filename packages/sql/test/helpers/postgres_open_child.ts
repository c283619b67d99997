/**
 * Child: waits for "go" on stdin, opens a Postgres store on the schema given (migrating an
 * empty one), prints the revision it finds, closes. Several run at once to race the first
 * migration.
 */
import { createPostgresStore } from '@cairn/sql/postgres'
import { adminQuery } from './postgres.ts'

const [url, schema] = process.argv.slice(2) as [string, string]
console.log('ready')
process.stdin.once('data', () => void run())

async function run(): Promise<void> {
  const store = createPostgresStore({ connectionString: url, schema })
  try {
    await store.open()
  } finally {
    await store.close()
  }
  const [row] = await adminQuery(`SELECT revision FROM "${schema}".cairn_schema`)
  console.log(`opened revision=${String(row?.[0])}`)
  process.exit(0)
}
