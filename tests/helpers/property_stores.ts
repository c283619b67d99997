/**
 * The stores the fast-check property tests run on: in-process ones, each run of a property on
 * a fresh store (memory; a SQLite file in a directory removed afterwards).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
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

/** A model of the store a property drives: one action at a time, checked after each. */
export interface PropertyWorld<A> {
  apply(action: A): Promise<void>
  /** After every action: the invariants, read from the store. */
  check(): Promise<void>
  /** After the last action (optional): how it must end. */
  finish?(): Promise<void>
}

/**
 * Registers the property `title` on the memory store (300 cases) and on SQLite (60): each case
 * a random array of `action`s (5…60) applied to a fresh store's `world`.
 */
export function storeProperty<A>(
  title: string,
  action: fc.Arbitrary<A>,
  world: (store: StateStore) => PropertyWorld<A>,
): void {
  const run = (open: OpenStore, numRuns: number) =>
    fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 60 }), async (actions) => {
        const { store, close } = await open()
        try {
          const model = world(store)
          for (const a of actions) {
            await model.apply(a)
            await model.check()
          }
          await model.finish?.()
        } finally {
          await close()
        }
      }),
      { numRuns },
    )
  void test(`${title} on the memory store`, () => withMemoryStores((open) => run(open, 300)))
  void test(`${title} on SQLite`, () => withSqliteStores((open) => run(open, 60)))
}
