/**
 * The MySQL/MariaDB server the mysql row measures against: the URL from CAIRN_MYSQL_URL, a
 * probe with the same rules as Postgres (skipped loudly when down, an error under CI), and a
 * scratch database per run, dropped afterwards.
 */
import mysql from 'mysql2/promise'

export const MYSQL_URL = process.env.CAIRN_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test'

const START = 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd'

/** Whether MySQL answers; throws when `required` or under CI, else prints one loud line. */
export async function mysqlAvailable(required: boolean): Promise<boolean> {
  const problem = await probe()
  if (problem === null) return true
  const message = `mysql at ${MYSQL_URL} is unreachable (${problem}); start it with: ${START}`
  const ci = process.env.CI === 'true' || process.env.CAIRN_REQUIRE_SERVICES === '1'
  if (required || ci) throw new Error(message)
  console.warn(`\n!!! SKIPPING MYSQL BENCH ROWS: ${message}\n`)
  return false
}

async function probe(): Promise<string | null> {
  try {
    const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 2_000 })
    await connection.query('SELECT 1')
    await connection.end()
    return null
  } catch (error) {
    return String(error)
  }
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
