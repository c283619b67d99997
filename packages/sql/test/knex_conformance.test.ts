/**
 * The store conformance suite on a Knex instance's connections, per dialect: Postgres (pg)
 * and MySQL/MariaDB (mysql2) on one Knex each shared by every test (a schema or database per
 * test), SQLite (better-sqlite3) on a Knex per test (a file, and ':memory:').
 */
import { after, test } from 'node:test'
import { storeConformance } from '@cairn/conformance'
import { knexServerFactory, knexSqliteFactory, mysqlKnex, pgKnex } from './helpers/knex.ts'
import { mysqlTest } from './helpers/mysql.ts'
import { pgTest } from './helpers/postgres.ts'

const pg = pgKnex()
const mysql = mysqlKnex()
after(() => Promise.all([pg.destroy(), mysql.destroy()]))

storeConformance(pgTest, knexServerFactory('knex-postgres', pg))
storeConformance(mysqlTest, knexServerFactory('knex-mysql', mysql))
storeConformance(test, knexSqliteFactory('knex-better-sqlite3'))
storeConformance(test, knexSqliteFactory('knex-better-sqlite3 (:memory:)', true))
