/**
 * Child: waits for "go" on stdin, opens the store (migrating a fresh file), prints the
 * schema revision, closes. Several run at once to race the first migration.
 */
import { DatabaseSync } from 'node:sqlite'
import { createSqliteStore } from '@cairn/sql/sqlite'

const path = process.argv[2] as string
console.log('ready')
process.stdin.once('data', () => void run())

async function run(): Promise<void> {
  const store = createSqliteStore({ path })
  await store.open()
  await store.close()
  const db = new DatabaseSync(path, { readOnly: true })
  const row = db.prepare('SELECT revision FROM cairn_schema').get() as { revision: number }
  db.close()
  console.log(`opened revision=${row.revision}`)
  process.exit(0)
}
