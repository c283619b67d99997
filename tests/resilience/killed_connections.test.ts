/**
 * F4 (connections killed mid-load): the server connections of a running engine process are
 * killed again and again while it drives a workload — `pg_terminate_backend` on Postgres,
 * `KILL` on MariaDB. Only this test's own connections are killed (by application_name / by
 * user), so it runs alongside other tests; restarts of the whole server are in tests/restart
 * (the serial phase).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ServerKind, ServerSite } from '../crash/server_sites.ts'
import { pause } from '../crash/supervisor.ts'
import { MYSQL_URL, PG_URL, serviceAvailable } from '../helpers/services.ts'
import { survivesDisruption } from './through_disruption.ts'

const ROUNDS = 8

const STORMS: Record<string, { kind: ServerKind; killAll(site: ServerSite): Promise<number> }> = {
  Postgres: { kind: 'postgres', killAll: terminateBackends },
  MariaDB: { kind: 'mysql', killAll: killConnections },
}

for (const [label, storm] of Object.entries(STORMS)) {
  const available = await serviceAvailable(storm.kind)
  void test(
    `${label} connections killed mid-load: the engine survives, every run completes, no connection leaks`,
    { skip: !available && `${storm.kind} unreachable`, timeout: 240_000 },
    async () => {
      const report = await survivesDisruption({
        kind: storm.kind,
        disrupt: async (site) => {
          let killed = 0
          for (let round = 0; round < ROUNDS; round++) {
            killed += await storm.killAll(site)
            await pause(250)
          }
          return killed
        },
      })
      assert.ok(report.faults >= ROUNDS, `only ${report.faults} connections were killed`)
      assert.ok(report.openAtFault > 0, 'no run was open when the storm began')
    },
  )
}

async function terminateBackends(site: ServerSite): Promise<number> {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  try {
    const result = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [site.name],
    )
    return result.rowCount ?? 0
  } finally {
    await admin.end()
  }
}

async function killConnections(site: ServerSite): Promise<number> {
  const mysql = await import('mysql2/promise')
  const admin = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    const [rows] = await admin.query(
      'SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?',
      [site.name],
    )
    let killed = 0
    for (const { ID } of rows as Array<{ ID: number }>) {
      // A connection may close between the listing and the KILL: that one is simply gone.
      await admin.query(`KILL ${Number(ID)}`).then(
        () => killed++,
        () => undefined,
      )
    }
    return killed
  } finally {
    await admin.end()
  }
}
