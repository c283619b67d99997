/**
 * Stopping and starting the machine's Postgres, MariaDB and Redis for the restart tests. A test that
 * stops a service must start it again whatever happens (RELIABILITY: fault tests leave the
 * services running), so every stop is paired with a start in a finally.
 */
import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { promisify } from 'node:util'
import { pause } from '../crash/supervisor.ts'

const run = promisify(execFile)

const pgVersion = () => readdirSync('/etc/postgresql')[0] as string
const pgCtl = (...args: string[]) =>
  run('pg_ctlcluster', ['--skip-systemctl-redirect', pgVersion(), 'main', ...args])

/** `fast`: clients are disconnected and the server shuts down cleanly; `immediate`: it aborts (crash recovery on start). */
export async function stopPostgres(mode: 'fast' | 'immediate'): Promise<void> {
  await pgCtl('stop', '-m', mode)
}

export async function startPostgres(): Promise<void> {
  await pgCtl('start').catch(async (error: unknown) => {
    if (!(await postgresUp())) throw error // "already running" is fine
  })
  await until('PostgreSQL', postgresUp)
}

/** `graceful`: `mysqladmin shutdown`; `kill`: SIGKILL, so the next start runs crash recovery. */
export async function stopMariadb(mode: 'graceful' | 'kill'): Promise<void> {
  if (mode === 'graceful')
    await run('mysqladmin', ['--protocol=tcp', '-h', '127.0.0.1', '-uroot', 'shutdown'])
  else await run('pkill', ['-KILL', '-x', 'mariadbd'])
  await until('MariaDB to stop', async () => !(await mariadbRunning()))
}

export async function startMariadb(): Promise<void> {
  if (!(await mariadbRunning()))
    await run('start-stop-daemon', [
      '--start',
      '--oknodo',
      '--background',
      '--exec',
      '/usr/sbin/mariadbd',
    ])
  await until('MariaDB', mariadbUp)
}

/** Redis as CI runs it: no persistence, so a restart loses every queue and job. */
export async function stopRedis(): Promise<void> {
  await run('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'shutdown', 'nosave']).catch(() => {})
  await until('Redis to stop', async () => !(await redisUp()))
}

export async function startRedis(): Promise<void> {
  if (!(await redisUp()))
    await run('redis-server', [
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '-::1',
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      '/var/lib/redis',
      '--logfile',
      '/var/log/redis/ci.log',
    ])
  await until('Redis', redisUp)
}

async function redisUp(): Promise<boolean> {
  return succeeds('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'ping'])
}

async function postgresUp(): Promise<boolean> {
  return succeeds('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432'])
}

async function mariadbUp(): Promise<boolean> {
  return succeeds('mysqladmin', ['--protocol=tcp', '-h', '127.0.0.1', '-uroot', 'ping'])
}

async function mariadbRunning(): Promise<boolean> {
  return succeeds('pgrep', ['-x', 'mariadbd'])
}

async function succeeds(command: string, args: string[]): Promise<boolean> {
  return run(command, args).then(
    () => true,
    () => false,
  )
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}`)
    await pause(200)
  }
}
