/** The db transport passes the transport conformance suite on Postgres, MariaDB and SQLite. */
import { test } from 'node:test'
import { transportConformance } from '@cairn/conformance'
import { createDbUnderTest, dialectUp, DIALECTS } from './db_fixture.ts'

for (const dialect of DIALECTS) {
  if (await dialectUp(dialect))
    transportConformance(test, {
      name: `db (${dialect})`,
      create: async () => createDbUnderTest(dialect),
    })
}
