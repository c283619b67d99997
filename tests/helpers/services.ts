/**
 * Real services for tests and benchmarks (Postgres, MariaDB, Redis), in one place: connection URLs
 * from the environment, the command that starts each, a probe, and the rule for when one is
 * down — skip with one loud line naming the service and how to start it, except under CI=true
 * or CAIRN_REQUIRE_SERVICES=1, where a missing service fails. packages/sql's tests and bench/
 * use the same facts with their own reporting.
 */
export const PG_URL = process.env.CAIRN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const MYSQL_URL = process.env.CAIRN_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test'
export const REDIS_URL = process.env.CAIRN_REDIS_URL ?? 'redis://127.0.0.1:6379'

export type Service = 'postgres' | 'mysql' | 'redis'

export const START_COMMANDS: Record<Service, string> = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  mysql: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
}

export function servicesRequired(): boolean {
  return process.env.CI === 'true' || process.env.CAIRN_REQUIRE_SERVICES === '1'
}

const probes = new Map<string, Promise<string | null>>()

/** null when reachable, else why not. Probed once per process. */
export function probe(service: Service): Promise<string | null> {
  let result = probes.get(service)
  if (result === undefined) probes.set(service, (result = PROBES[service]()))
  return result
}

const PROBES: Record<Service, () => Promise<string | null>> = {
  postgres: probePostgres,
  mysql: probeMysql,
  redis: probeRedis,
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

async function probeRedis(): Promise<string | null> {
  const { Redis } = await import('ioredis')
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  let lastError: unknown = null
  client.on('error', (error: unknown) => (lastError = error))
  try {
    await client.connect()
    await client.ping()
    return null
  } catch (error) {
    return String(lastError ?? error)
  } finally {
    client.disconnect()
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
