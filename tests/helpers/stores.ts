/**
 * The stores every engine test runs against. `DB=memory,sqlite` (default: all of them)
 * selects; each test gets a fresh store and removes it afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryStore } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { SqliteStore } from '@cairn/sql/sqlite'

export interface StoreHandle {
  store: StateStore
  /** Another handle on the same database (a second process would open one); memory: the same object. */
  reopen(): StateStore
  cleanup(): Promise<void>
}

type Factory = () => StoreHandle

const factories: Record<string, Factory> = {
  memory: () => {
    const store = new MemoryStore()
    return { store, reopen: () => store, cleanup: async () => {} }
  },
  sqlite: () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-test-'))
    const path = join(dir, 'cairn.db')
    const opened: StateStore[] = []
    const open = () => {
      const store = new SqliteStore({ path })
      opened.push(store)
      return store
    }
    const store = open()
    return {
      store,
      reopen: open,
      cleanup: async () => {
        for (const s of opened) await s.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  },
}

export function selectedStores(): string[] {
  const wanted = (process.env.DB ?? Object.keys(factories).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const name of wanted)
    if (!(name in factories))
      throw new Error(`DB=${name}: unknown store (known: ${Object.keys(factories).join(', ')})`)
  return wanted
}

export function openStore(name: string): StoreHandle {
  return (factories[name] as Factory)()
}
