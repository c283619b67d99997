/**
 * The store conformance suite on MySQL/MariaDB, a fresh database per test: with the store's
 * own pool (READ COMMITTED sessions), and on a pool handed in by the caller (shared by every
 * test, left open by the store, its sessions at the server's default REPEATABLE READ).
 */
import { after } from 'node:test'
import mysql from 'mysql2/promise'
import { storeConformance } from '@cairn/conformance'
import { MYSQL_URL, conformanceFactory, mysqlTest } from './helpers/mysql.ts'

storeConformance(mysqlTest, conformanceFactory('mysql'))

const shared = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 4 })
after(() => shared.end())
storeConformance(
  mysqlTest,
  conformanceFactory('mysql (given pool)', () => ({ pool: shared })),
)
