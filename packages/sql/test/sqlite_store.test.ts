/**
 * The store conformance suite on SQLite: a temp file per test, with synchronous FULL and
 * NORMAL; and the batches of children telling their parents that the SQL stores share.
 */
import { test } from 'node:test'
import { storeConformance } from '@cairn/conformance'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { NOTICE_CASES } from './helpers/notice_cases.ts'
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

for (const [title, body] of NOTICE_CASES) {
  void test(`sqlite: ${title}`, async () => {
    const dir = await makeTempDir()
    const store = createSqliteStore({ path: dir.file('notices.db') })
    try {
      await store.open()
      await body(store)
    } finally {
      await store.close()
      await dir.remove()
    }
  })
}
