/**
 * The shop's database: a SQLite file under tmp/ by default (no setup), Postgres with
 * DB_CONNECTION=pg. Cairn keeps its tables in the same database (config/durable.ts).
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import env from '#start/env'
import app from '@adonisjs/core/services/app'
import { defineConfig } from '@adonisjs/lucid'

const sqliteFile = env.get('SQLITE_FILE') ?? app.tmpPath('shop.sqlite3')
// better-sqlite3 creates the file but not its directory (tmp/ is not committed).
mkdirSync(dirname(sqliteFile), { recursive: true })

const migrations = { naturalSort: true, paths: ['database/migrations'] }
// The app queries tables directly (no models), so there is no generated schema to keep.
const schemaGeneration = { enabled: false }

export default defineConfig({
  connection: env.get('DB_CONNECTION', 'sqlite'),
  connections: {
    sqlite: {
      client: 'better-sqlite3',
      connection: { filename: sqliteFile },
      useNullAsDefault: true,
      pool: {
        // better-sqlite3's WAL default (NORMAL) survives a process crash but may lose the last
        // commits on a power cut; FULL is what Cairn's own SQLite store uses (docs/knex.md).
        afterCreate: (connection: { pragma(sql: string): unknown }, done: () => void) => {
          connection.pragma('synchronous = FULL')
          done()
        },
      },
      migrations,
      schemaGeneration,
    },
    pg: {
      client: 'pg',
      connection: {
        host: env.get('PG_HOST', '127.0.0.1'),
        port: env.get('PG_PORT', 5432),
        user: env.get('PG_USER', 'postgres'),
        password: env.get('PG_PASSWORD'),
        database: env.get('PG_DB_NAME', 'postgres'),
      },
      migrations,
      schemaGeneration,
    },
  },
})
