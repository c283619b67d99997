/**
 * What every conformance test stands on: a fresh opened store per test, fixed times, record
 * builders and assertions that say what went wrong in words (a failing store should read
 * like a bug report, not a stack of `false !== true`).
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'

/** Registers a test with the host runner (node:test, vitest, …); its return value is ignored. */
export type TestFn = (name: string, fn: () => Promise<void>) => unknown

export interface StoreFactory {
  /** Shown in every test name. */
  name: string
  /**
   * A new, empty store (not opened: the suite calls `open`). After the test the suite calls
   * `store.close()`, then `cleanup()` (delete the database file, drop the schema, …).
   */
  create(): Promise<{ store: StateStore; cleanup(): Promise<void> }>
}

/** Registers one test of a group; the body gets a fresh opened store. */
export type Define = (name: string, body: (store: StateStore) => Promise<void>) => void

export function definer(test: TestFn, factory: StoreFactory, group: string): Define {
  return (name, body) => {
    test(`${factory.name} store: ${group}: ${name}`, () => withStore(factory, body))
  }
}

async function withStore(factory: StoreFactory, body: (store: StateStore) => Promise<void>) {
  const { store, cleanup } = await factory.create()
  try {
    await store.open()
    await body(store)
  } finally {
    try {
      await store.close()
    } finally {
      await cleanup()
    }
  }
}

/** Deep strict equality whose failure names the thing compared and keeps the diff. */
export function same(actual: unknown, expected: unknown, what: string): void {
  try {
    assert.deepStrictEqual(actual, expected)
  } catch (err) {
    if (err instanceof assert.AssertionError) err.message = `${what}\n${err.message}`
    throw err
  }
}

/** String equality for big payloads: reports lengths and the first difference, not 1 MiB of diff. */
export function sameText(actual: unknown, expected: string, what: string): void {
  if (actual === expected) return
  if (typeof actual !== 'string') assert.fail(`${what}: expected a string, got ${typeof actual}`)
  let i = 0
  while (i < actual.length && actual.charCodeAt(i) === expected.charCodeAt(i)) i++
  assert.fail(
    `${what}: text differs (length ${actual.length}, expected ${expected.length}); first ` +
      `difference at index ${i}: got ${JSON.stringify(actual.slice(i, i + 20))}, expected ` +
      `${JSON.stringify(expected.slice(i, i + 20))}`,
  )
}

/** Awaits a call that must reject with a Cairn error of `code` (a sync throw is a failure too). */
export async function expectRejection(
  call: () => Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  let promise: Promise<unknown>
  try {
    promise = call()
  } catch (err) {
    assert.fail(`${what}: threw synchronously instead of rejecting: ${String(err)}`)
  }
  const outcome = await promise.then(
    (value) => ({ rejected: false as const, value }),
    (error: unknown) => ({ rejected: true as const, error }),
  )
  if (!outcome.rejected) {
    assert.fail(`${what}: expected a rejection with ${code}, resolved with ${show(outcome.value)}`)
  }
  const actual = (outcome.error as { code?: unknown } | null)?.code
  if (actual !== code) {
    assert.fail(
      `${what}: expected rejection code ${code}, got ${String(actual)}: ${String(outcome.error)}`,
    )
  }
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}
