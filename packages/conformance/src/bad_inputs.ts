/** Bad listRuns input is refused with a stable code, never half-served. */
import assert from 'node:assert/strict'
import { T0 } from './fixtures.ts'
import { expectRejection, type Define } from './harness.ts'
import { createPending, list } from './store_calls.ts'

const GARBAGE_CURSORS = [
  'garbage',
  '',
  '!!!',
  'e30',
  'W10',
  '[1,"x"]',
  'null',
  '0',
  '-1',
  'AAAAAAAAAAAA',
]

/** Characters swapped in: letters, digits and URL-safe signs, to hit any text encoding. */
const SWAPS = ['A', 'Q', 'g', 'w', 'z', '0', '1', '5', '9', '-', '_', '.']

/**
 * Every single-character change, cut and extension of an issued cursor: each must be refused,
 * so a cursor without an integrity check (where one changed digit pages from elsewhere) fails.
 */
function alterations(cursor: string): Array<[string, string]> {
  const altered: Array<[string, string]> = [
    ['without its last character', cursor.slice(0, -1)],
    ['without its first character', cursor.slice(1)],
    ['with a character appended', `${cursor}A`],
    ['cut in half', cursor.slice(0, cursor.length >> 1)],
  ]
  for (let i = 0; i < cursor.length; i++) {
    for (const swap of SWAPS) {
      if (cursor[i] === swap) continue
      altered.push([
        `with character ${i} changed to ${swap}`,
        cursor.slice(0, i) + swap + cursor.slice(i + 1),
      ])
    }
  }
  return altered
}

export function badInputTests(define: Define): void {
  define('a garbage cursor is refused with E_INVALID_CURSOR', async (store) => {
    await createPending(store, 'run-1', T0)
    for (const cursor of GARBAGE_CURSORS) {
      await expectRejection(
        () => store.listRuns({ cursor }),
        'E_INVALID_CURSOR',
        `cursor ${JSON.stringify(cursor)}`,
      )
    }
  })

  define('an altered cursor is refused with E_INVALID_CURSOR', async (store) => {
    for (let i = 0; i < 3; i++) await createPending(store, `run-${i}`, T0 + i)
    const cursor = (await list(store, { limit: 1 })).nextCursor
    assert.ok(cursor !== null, 'a page of 1 out of 3 runs must have a nextCursor')
    for (const [how, altered] of alterations(cursor)) {
      assert.notEqual(altered, cursor)
      await expectRejection(
        () => store.listRuns({ limit: 1, cursor: altered }),
        'E_INVALID_CURSOR',
        `the cursor ${how}`,
      )
    }
    const next = await list(store, { limit: 1, cursor })
    assert.equal(next.runs[0]?.id, 'run-1', 'the unaltered cursor still works')
  })

  define('a limit outside 1..1000 is refused with E_INVALID_ARGUMENT', async (store) => {
    await createPending(store, 'run-1', T0)
    for (const limit of [0, 1001, -1, 2.5, Number.NaN]) {
      await expectRejection(() => store.listRuns({ limit }), 'E_INVALID_ARGUMENT', `limit ${limit}`)
    }
    for (const limit of [1, 1000]) {
      assert.equal((await list(store, { limit })).runs.length, 1, `limit ${limit} is allowed`)
    }
  })
}
