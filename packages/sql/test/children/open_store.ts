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
  // A busy timeout: another child may still hold the file's lock (its own migration
  // check, or the WAL checkpoint its close runs), and this reader must wait, not fail.
  const db = new DatabaseSync(path, { readOnly: true, timeout: 10_000 })
  const row = db.prepare('SELECT revision FROM cairn_schema').get() as { revision: number }
  db.close()
  console.log(`opened revision=${row.revision}`)
  process.exit(0)
}
