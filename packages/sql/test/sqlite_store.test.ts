/** The store conformance suite on SQLite: a temp file per test, with synchronous FULL and NORMAL. */
import { test } from 'node:test'
import { storeConformance } from '@cairn/conformance'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { makeTempDir } from './helpers/temp_dir.ts'

for (const synchronous of ['full', 'normal'] as const) {
  storeConformance(test, {
    name: `sqlite (synchronous=${synchronous})`,
    create: async () => {
      const dir = await makeTempDir()
      const store = createSqliteStore({ path: dir.file('conformance.db'), synchronous })
      return { store, cleanup: () => dir.remove() }
    },
  })
}
