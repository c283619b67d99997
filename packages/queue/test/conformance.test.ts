/**
 * The queue transport passes the transport conformance suite on each real adapter of
 * `@boringnode/queue`: Redis, and Knex on Postgres, MariaDB and SQLite.
 */
import { test } from 'node:test'
import { transportConformance } from '@cairn/conformance'
import { serviceAvailable } from '../../../tests/helpers/services.ts'
import { createUnderTest, type AdapterKind } from './adapters.ts'

const kinds: AdapterKind[] = ['sqlite']
if (await serviceAvailable('redis')) kinds.push('redis')
if (await serviceAvailable('postgres')) kinds.push('postgres')
if (await serviceAvailable('mysql')) kinds.push('mysql')

for (const kind of kinds) {
  transportConformance(test, {
    name: `queue (${kind})`,
    create: () => createUnderTest(kind),
  })
}
