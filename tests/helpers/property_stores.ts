/**
 * The stores the fast-check property tests run on: in-process ones, each run of a property on
 * a fresh store (memory; a SQLite file in a directory removed afterwards).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryStore } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'

export type OpenStore = () => Promise<{ store: StateStore; close(): Promise<void> }>

export async function withMemoryStores(body: (open: OpenStore) => Promise<void>): Promise<void> {
  await body(async () => {
    const store = new MemoryStore()
    await store.open()
    return { store, close: () => store.close() }
  })
}

export async function withSqliteStores(body: (open: OpenStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-property-'))
  let n = 0
  try {
    await body(async () => {
      const store = createSqliteStore({ path: join(dir, `p${n++}.db`), synchronous: 'normal' })
      await store.open()
      return { store, close: () => store.close() }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
