/**
 * A transport from a URL, for `cairn worker`: the scheme picks BullMQ (redis, rediss) or the db
 * transport's dialect (postgres, mysql/mariadb, sqlite or a bare path). Options of the other kind
 * (`--schema` with Redis, `--prefix` with a database) are refused, never ignored.
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import { UsageError } from '../usage_error.ts'

export interface TransportPair {
  engine(): EngineTransport
  worker(): WorkerTransport
}

export async function transportFromUrl(
  url: string,
  options: { schema: string | undefined; prefix: string | undefined },
  /** The command refusing a URL, in its messages. */
  command = 'cairn worker',
): Promise<TransportPair> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase()
  if (scheme === 'redis' || scheme === 'rediss') {
    if (options.schema !== undefined)
      throw new UsageError(`${command}: --schema is for postgres://`)
    const { bullmqTransport } = await importBullmq(command)
    return bullmqTransport({
      connection: url,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    })
  }
  if (options.prefix !== undefined) throw new UsageError(`${command}: --prefix is for redis://`)
  const sql = await import('@cairn/sql/transport')
  if (scheme === 'postgres' || scheme === 'postgresql')
    return sql.postgresTransport({
      connectionString: url,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
    })
  if (options.schema !== undefined) throw new UsageError(`${command}: --schema is for postgres://`)
  if (scheme === 'mysql' || scheme === 'mariadb')
    return sql.mysqlTransport({ uri: url.replace(/^mariadb:/i, 'mysql:') })
  if (scheme === 'sqlite') return sql.sqliteTransport({ path: url.slice('sqlite:'.length) })
  if (scheme === undefined || /^[a-z]$/i.test(scheme)) return sql.sqliteTransport({ path: url })
  throw new UsageError(
    `${command}: --transport ${url} is not a transport (redis://, rediss://, postgres://, mysql://, mariadb://, sqlite:<path> or a path)`,
  )
}

async function importBullmq(command: string): Promise<{
  bullmqTransport(options: { connection: string; prefix?: string }): TransportPair
}> {
  try {
    return (await import('@cairn/bullmq')) as never
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError(
        `${command}: a redis:// transport needs @cairn/bullmq: npm install @cairn/bullmq`,
      )
    throw error
  }
}
