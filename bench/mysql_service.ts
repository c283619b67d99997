/**
 * The MySQL/MariaDB server the mysql row measures against, on the repository's one set of
 * service facts (tests/helpers/services.ts), skipped loudly when down (an error under CI or
 * when asked for by name), and a scratch database per run, dropped afterwards.
 */
import mysql from 'mysql2/promise'
import { MYSQL_URL, probe, servicesRequired, START_COMMANDS } from '../tests/helpers/services.ts'

export { MYSQL_URL }

/** Whether MySQL answers; throws when `required` or under CI, else prints one loud line. */
export async function mysqlAvailable(required: boolean): Promise<boolean> {
  const problem = await probe('mysql')
  if (problem === null) return true
  const message = `mysql at ${MYSQL_URL} is unreachable (${problem}); start it with: ${START_COMMANDS.mysql}`
  if (required || servicesRequired()) throw new Error(message)
  console.warn(`\n!!! SKIPPING MYSQL BENCH ROWS: ${message}\n`)
  return false
}

/** Runs `fn` with a fresh database named after `prefix`, dropped afterwards. */
export async function withScratchDatabase<T>(
  prefix: string,
  fn: (database: string) => Promise<T>,
): Promise<T> {
  const database = `${prefix}_${process.pid}`
  const admin = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
    return await fn(database)
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
    await admin.end()
  }
}
