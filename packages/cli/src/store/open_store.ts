/**
 * Opens the store a `--store` URL names with @cairn/sql's own constructors, and opens it
 * (migrations included). A driver that is not installed, an unreachable server or a missing
 * SQLite file becomes a Cairn error whose message shows the URL redacted.
 */
import { existsSync } from 'node:fs'
import { CairnError, ErrorCodes, InvalidArgumentError } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { redactUrl } from './redact.ts'
import { parseStoreUrl, type StoreTarget } from './store_url.ts'

export async function openStoreFromUrl(text: string): Promise<StateStore> {
  const store = await construct(parseStoreUrl(text))
  try {
    await store.open()
  } catch (error) {
    await store.close().catch(() => {})
    // Keep the store's own code (E_MIGRATION_FAILED, E_STORE_FAILURE), say which store it was.
    const code = CairnError.isCairnError(error) ? error.code : ErrorCodes.STORE_FAILURE
    throw new CairnError(code, `cannot open store ${redactUrl(text)}: ${messageOf(error)}`, {
      cause: error,
    })
  }
  return store
}

async function construct(target: StoreTarget): Promise<StateStore> {
  switch (target.kind) {
    case 'sqlite': {
      // Opening a mistyped path would create an empty database and show no runs: refuse.
      if (!existsSync(target.path))
        throw new InvalidArgumentError(`--store: no SQLite file at ${target.path}`)
      const { SqliteStore } = await import('@cairn/sql/sqlite')
      return new SqliteStore({ path: target.path })
    }
    case 'postgres': {
      const { PostgresStore } = await driver('pg', () => import('@cairn/sql/postgres'))
      return new PostgresStore({
        connectionString: target.connectionString,
        schema: target.schema,
        max: 4,
      })
    }
    case 'mysql': {
      const { MysqlStore } = await driver('mysql2', () => import('@cairn/sql/mysql'))
      return new MysqlStore({ uri: target.uri, max: 4 })
    }
  }
}

/** The store module, or a clear error naming the driver package to install. */
async function driver<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND')
      throw new InvalidArgumentError(
        `--store: this store needs the ${name} package (npm install ${name})`,
      )
    throw error
  }
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0])
  return error instanceof Error ? error.message : String(error)
}
