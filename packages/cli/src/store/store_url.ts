/**
 * What `--store` accepts, parsed into the options of one of @cairn/sql's stores:
 * a SQLite file (`./cairn.db`, `sqlite:./cairn.db`, `sqlite:///abs/cairn.db`, `file:///abs/cairn.db`),
 * Postgres (`postgres://` or `postgresql://`, optional `?schema=`), MySQL or MariaDB
 * (`mysql://` or `mariadb://`, the database named in the path). Parsing touches nothing.
 */
import { fileURLToPath } from 'node:url'
import { InvalidArgumentError } from '@cairn/core'
import { redactUrl } from './redact.ts'

export type StoreTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; connectionString: string; schema?: string }
  | { kind: 'mysql'; uri: string }

const SCHEME = /^([a-z][a-z0-9+.-]*):/i
/** One letter then `:` is a Windows drive, not a scheme. */
const DRIVE = /^[a-z]:[\\/]/i

export function parseStoreUrl(text: string): StoreTarget {
  if (text.trim() === '') throw new InvalidArgumentError('--store: empty store URL')
  const scheme = DRIVE.test(text) ? undefined : SCHEME.exec(text)?.[1]?.toLowerCase()
  if (scheme === undefined) return { kind: 'sqlite', path: text }
  if (scheme === 'sqlite') return { kind: 'sqlite', path: sqlitePath(text) }
  if (scheme === 'file') return { kind: 'sqlite', path: filePath(text) }
  if (scheme === 'postgres' || scheme === 'postgresql') return postgresTarget(text)
  if (scheme === 'mysql' || scheme === 'mariadb') return mysqlTarget(text)
  throw new InvalidArgumentError(
    `--store: unsupported scheme "${scheme}:" in ${redactUrl(text)} (expected a SQLite file path, sqlite:, file:, postgres://, postgresql://, mysql:// or mariadb://)`,
  )
}

/** `sqlite:relative/path`, `sqlite:/abs/path` or `sqlite:///abs/path`. */
function sqlitePath(text: string): string {
  const rest = text.slice('sqlite:'.length)
  const path = rest.startsWith('//') ? rest.slice(2) : rest
  if (path === '') throw new InvalidArgumentError('--store: sqlite: needs a file path')
  return path
}

function filePath(text: string): string {
  try {
    return fileURLToPath(text)
  } catch (error) {
    throw new InvalidArgumentError(`--store: ${text} is not a valid file: URL`, { cause: error })
  }
}

function parsedUrl(text: string): URL {
  if (!URL.canParse(text))
    throw new InvalidArgumentError(`--store: ${redactUrl(text)} is not a valid URL`)
  return new URL(text)
}

/** `?schema=` picks the store's schema option; the rest of the URL goes to pg as is. */
function postgresTarget(text: string): StoreTarget {
  const url = parsedUrl(text)
  if (url.hostname === '')
    throw new InvalidArgumentError(`--store: ${redactUrl(text)} names no host`)
  const schema = url.searchParams.get('schema') ?? undefined
  url.searchParams.delete('schema')
  return { kind: 'postgres', connectionString: url.toString(), ...(schema && { schema }) }
}

/** mysql2 speaks to MariaDB too; it only knows the `mysql:` scheme. */
function mysqlTarget(text: string): StoreTarget {
  const url = parsedUrl(text)
  if (url.hostname === '')
    throw new InvalidArgumentError(`--store: ${redactUrl(text)} names no host`)
  return { kind: 'mysql', uri: text.replace(SCHEME, 'mysql:') }
}
