/**
 * Real services for tests and benchmarks (Postgres, MariaDB), in one place: connection URLs
 * from the environment, the command that starts each, a probe, and the rule for when one is
 * down — skip with one loud line naming the service and how to start it, except under CI=true
 * or CAIRN_REQUIRE_SERVICES=1, where a missing service fails. packages/sql's tests and bench/
 * use the same facts with their own reporting.
 */
export const PG_URL = process.env.CAIRN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const MYSQL_URL = process.env.CAIRN_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test'

export type Service = 'postgres' | 'mysql'

export const START_COMMANDS: Record<Service, string> = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  mysql: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd',
}

export function servicesRequired(): boolean {
  return process.env.CI === 'true' || process.env.CAIRN_REQUIRE_SERVICES === '1'
}

const probes = new Map<string, Promise<string | null>>()

/** null when reachable, else why not. Probed once per process. */
export function probe(service: Service): Promise<string | null> {
  let result = probes.get(service)
  if (result === undefined)
    probes.set(service, (result = service === 'postgres' ? probePostgres() : probeMysql()))
  return result
}

async function probePostgres(): Promise<string | null> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return null
  } catch (error) {
    return String(error)
  } finally {
    await client.end().catch(() => {})
  }
}

async function probeMysql(): Promise<string | null> {
  const mysql = await import('mysql2/promise')
  try {
    const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 2_000 })
    await connection.query('SELECT 1')
    await connection.end()
    return null
  } catch (error) {
    return String(error)
  }
}

/** Whether tests of `service` should run; prints the loud skip line (or throws under CI). */
export async function serviceAvailable(service: Service): Promise<boolean> {
  const problem = await probe(service)
  if (problem === null) return true
  const message = `${service} is unreachable (${problem}); start it with: ${START_COMMANDS[service]}`
  if (servicesRequired())
    throw new Error(`${message} — required under CI=true / CAIRN_REQUIRE_SERVICES=1`)
  console.warn(`\n!!! SKIPPING ${service.toUpperCase()} TESTS: ${message}\n`)
  return false
}
