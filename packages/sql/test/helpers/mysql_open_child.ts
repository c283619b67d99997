/**
 * Child: waits for "go" on stdin, opens a MySQL store on the database given (creating and
 * migrating it when missing), prints the revision it finds, closes. Several run at once to
 * race the first migration.
 */
import { createMysqlStore } from '@cairn/sql/mysql'
import { adminQuery } from './mysql.ts'

const [uri, database] = process.argv.slice(2) as [string, string]
console.log('ready')
process.stdin.once('data', () => void run())

async function run(): Promise<void> {
  const store = createMysqlStore({ uri, database })
  try {
    await store.open()
  } finally {
    await store.close()
  }
  const [row] = await adminQuery(`SELECT revision FROM \`${database}\`.cairn_schema`)
  console.log(`opened revision=${String(row?.[0])}`)
  process.exit(0)
}
