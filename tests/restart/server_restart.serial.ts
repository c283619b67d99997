/**
 * F5 (server restart): Postgres stopped with `-m fast` and with `-m immediate`, MariaDB shut down
 * cleanly and SIGKILLed — each mid-load, down for about two seconds, then started again (after
 * crash recovery for `immediate` and the kill). The engine process must ride it out: no exit,
 * every acknowledged start completes, no body re-run after its checkpoint, no connection leak.
 * These stop the machine's shared servers, so they run in the serial phase
 * (`npm run test:serial`), after every other test.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ServerKind } from '../crash/server_sites.ts'
import { pause } from '../crash/supervisor.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { survivesDisruption } from '../resilience/through_disruption.ts'
import { startMariadb, startPostgres, stopMariadb, stopPostgres } from './service_control.ts'

const DOWN_MS = 2_000

interface Outage {
  label: string
  kind: ServerKind
  stop(): Promise<void>
  start(): Promise<void>
}

const OUTAGES: Outage[] = [
  {
    label: 'Postgres stopped -m fast',
    kind: 'postgres',
    stop: () => stopPostgres('fast'),
    start: startPostgres,
  },
  {
    label: 'Postgres stopped -m immediate',
    kind: 'postgres',
    stop: () => stopPostgres('immediate'),
    start: startPostgres,
  },
  {
    label: 'MariaDB shut down',
    kind: 'mysql',
    stop: () => stopMariadb('graceful'),
    start: startMariadb,
  },
  {
    label: 'MariaDB SIGKILLed',
    kind: 'mysql',
    stop: () => stopMariadb('kill'),
    start: startMariadb,
  },
]

for (const outage of OUTAGES) {
  const available = await serviceAvailable(outage.kind)
  void test(
    `${outage.label} and restarted mid-load: the engine rides it out, every run completes, no connection leaks`,
    { skip: !available && `${outage.kind} unreachable`, timeout: 240_000 },
    async () => {
      const report = await survivesDisruption({
        kind: outage.kind,
        disrupt: async () => {
          try {
            await outage.stop()
            await pause(DOWN_MS)
          } finally {
            await outage.start()
          }
          return 1
        },
      })
      assert.ok(report.openAtFault > 0, 'no run was open when the server went down')
      assert.ok(report.failedStarts > 0, 'no start failed: the outage was never felt')
    },
  )
}
