/**
 * What the CLI tests stand on: a fresh database per suite (a SQLite file, a Postgres schema
 * named in the URL's `?schema=`, a MariaDB database named in the URL's path), an engine that
 * drives three small workflows on it, and the real `cairn` bin run as a child process against
 * the database's URL. An unreachable server is skipped loudly (an error under CI=true).
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { MYSQL_URL, PG_URL, serviceAvailable } from '../../../tests/helpers/services.ts'
import { dropMysqlDatabase, dropPostgresSchema } from '../../../tests/helpers/stores.ts'

export const BIN = fileURLToPath(new URL('../bin/cairn.ts', import.meta.url))

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `cairn <args>` in a child process (the environment is the test's plus `env`). */
export function cairn(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
        resolve({ code, stdout, stderr })
      },
    )
  })
}

export interface Database {
  /** The URL the CLI is given. */
  url: string
  open(): Promise<StateStore>
  drop(): Promise<void>
}

/** SQLite, and each server store whose service answers. */
export async function cliStores(): Promise<string[]> {
  const stores = ['sqlite']
  for (const service of ['postgres', 'mysql'] as const)
    if (await serviceAvailable(service)) stores.push(service)
  return stores
}

export async function freshDatabase(kind: string): Promise<Database> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-'))
    const path = join(dir, 'cairn.db')
    const { SqliteStore } = await import('@cairn/sql/sqlite')
    return {
      url: `sqlite:${path}`,
      open: async () => new SqliteStore({ path }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    }
  }
  if (kind === 'mysql') return freshMysqlDatabase()
  const { PostgresStore } = await import('@cairn/sql/postgres')
  const schema = `cairn_t_${randomBytes(6).toString('hex')}`
  const url = new URL(PG_URL)
  url.searchParams.set('schema', schema)
  return {
    url: url.toString(),
    open: async () => new PostgresStore({ connectionString: PG_URL, schema, max: 2 }),
    drop: () => dropPostgresSchema(schema),
  }
}

/** A MariaDB database named in the URL's path (the store creates it on open). */
async function freshMysqlDatabase(): Promise<Database> {
  const { MysqlStore } = await import('@cairn/sql/mysql')
  const database = `cairn_t_${randomBytes(6).toString('hex')}`
  const url = new URL(MYSQL_URL)
  url.pathname = `/${database}`
  return {
    url: url.toString(),
    open: async () => new MysqlStore({ uri: MYSQL_URL, database, max: 2 }),
    drop: () => dropMysqlDatabase(database),
  }
}

/** Whether `charge` fails (its card is declined) — flipped by a test to let a retry succeed. */
export const cardState = { declined: true }

/** What `booking`'s compensation undid, in the order it ran (the engine runs in this process). */
export const compensated: string[] = []

/**
 * A driving engine with `greet` (completes), `charge` (fails while the card is declined),
 * `approval` (waits for a signal) and `booking` (holds a seat, with a compensation that
 * releases it, then waits for a signal).
 */
export async function drivingEngine(store: StateStore): Promise<Engine> {
  const engine = new Engine({ store, logger: silentLogger, pollIntervalMs: 50, instanceId: 'app' })
  engine.register('greet', 1, async (ctx, name: string) => {
    return ctx.localStep('hello', () => `hello ${name}`)
  })
  engine.register('charge', 2, async (ctx, amount: number) => {
    await ctx.localStep('reserve', () => amount)
    return ctx.localStep('charge', () => {
      if (cardState.declined) throw new FatalError('card declined')
      return { charged: amount }
    })
  })
  engine.register('approval', 1, async (ctx) => ctx.waitForSignal('decision'))
  engine.register('booking', 1, async (ctx, seat: string) => {
    await ctx.localStep('hold', () => `hold-${seat}`, {
      compensate: (hold: string) => void compensated.push(`released ${hold}`),
    })
    return ctx.waitForSignal('confirm')
  })
  await engine.startDriving()
  return engine
}
