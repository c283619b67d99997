/**
 * The `sort` key of the runs list and bulk actions: newest first by default, `created` for
 * oldest first, cursors bound to the sort, anything else a 400.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { unwrapCursor, wrapCursor } from '../src/api/signed_cursor.ts'
import { SECRET, call, fixture, type Fixture, type Json } from './helpers.ts'

/** Started in id order, so (createdAt, id) order is start order whatever the clock says. */
const STARTED = ['w-0', 'w-1', 'w-2', 'w-3', 'w-4']

async function startWaiting(f: Fixture): Promise<void> {
  for (const runId of STARTED) await f.engine.start('wait', {}, { runId })
  await f.engine.whenQuiet()
}

/** Every run id of `query`, two per page, following the dashboard's cursors. */
async function allIds(f: Fixture, query: string): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const { status, json } = await call(f.dashboard, `/api/runs?${query}&limit=2${suffix}`)
    assert.equal(status, 200, JSON.stringify(json))
    ids.push(...json.runs.map((run: { id: string }) => run.id))
    cursor = json.nextCursor
  } while (cursor !== null)
  return ids
}

void describe('dashboard runs list sort', () => {
  let f: Fixture
  before(async () => {
    f = await fixture()
    await startWaiting(f)
  })
  after(() => f.close())

  void test('newest first by default and with sort=-created; oldest first with sort=created', async () => {
    const newest = STARTED.toReversed()
    assert.deepEqual(await allIds(f, 'workflow=wait'), newest)
    assert.deepEqual(await allIds(f, 'workflow=wait&sort=-created'), newest)
    assert.deepEqual(await allIds(f, 'workflow=wait&sort=created'), STARTED)
    assert.deepEqual(await allIds(f, 'sort=created&status=waiting'), STARTED, 'with a status')
  })

  void test('a sort outside the allowlist is 400 E_INVALID_ARGUMENT', async () => {
    for (const query of [
      'sort=id',
      'sort=Created',
      'sort=%2Bcreated',
      'sort=',
      'sort=created&sort=created',
      'sort=-created&sort=created',
    ]) {
      const { status, json } = await call(f.dashboard, `/api/runs?${query}`)
      assert.equal(status, 400, query)
      assert.equal(json.error.code, 'E_INVALID_ARGUMENT', query)
    }
  })

  void test('a cursor pages on in its own sort; with the other sort it is 400 E_INVALID_CURSOR', async () => {
    const page = (query: string) => call(f.dashboard, `/api/runs?workflow=wait&limit=2&${query}`)
    const oldest = (await page('sort=created')).json.nextCursor as string
    const newest = (await page('')).json.nextCursor as string
    const next = await page(`sort=created&cursor=${encodeURIComponent(oldest)}`)
    assert.deepEqual(
      next.json.runs.map((run: Json) => run.id),
      ['w-2', 'w-3'],
    )
    for (const query of [
      `cursor=${encodeURIComponent(oldest)}`,
      `sort=-created&cursor=${encodeURIComponent(oldest)}`,
      `sort=created&cursor=${encodeURIComponent(newest)}`,
    ]) {
      const { status, json } = await page(query)
      assert.equal(status, 400, query)
      assert.equal(json.error.code, 'E_INVALID_CURSOR', query)
    }
  })
})

void describe('signed cursors bind the sort', () => {
  // The store refuses a cursor of the other order too; this is the dashboard's own check.
  void test('a cursor signed for one sort does not unwrap with the other', () => {
    const filter = { workflow: ['wait'] }
    const oldest = wrapCursor(SECRET, 'store-cursor', filter, 'created')
    assert.equal(unwrapCursor(SECRET, oldest, filter, 'created'), 'store-cursor')
    assert.throws(() => unwrapCursor(SECRET, oldest, filter, '-created'), {
      code: 'E_INVALID_CURSOR',
    })
    const newest = wrapCursor(SECRET, 'store-cursor', filter, '-created')
    assert.equal(unwrapCursor(SECRET, newest, filter), 'store-cursor', 'newest is the default')
    assert.throws(() => unwrapCursor(SECRET, newest, filter, 'created'), {
      code: 'E_INVALID_CURSOR',
    })
  })
})

void describe('dashboard bulk actions sort', () => {
  let f: Fixture
  before(async () => (f = await fixture({ bulkLimit: 2 })))
  after(() => f.close())

  const statuses = async () =>
    Promise.all(STARTED.map(async (id) => (await f.engine.getRun(id))?.status))

  void test('a capped bulk action takes the first runs in its sort', async () => {
    await startWaiting(f)
    const oldest = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'wait' }, sort: 'created' },
    })
    assert.equal(oldest.json.applied, 2)
    assert.equal(oldest.json.truncated, true)
    assert.deepEqual(await statuses(), ['cancelled', 'cancelled', 'waiting', 'waiting', 'waiting'])
    const newest = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'wait' } },
    })
    assert.equal(newest.json.applied, 2)
    assert.deepEqual(await statuses(), [
      'cancelled',
      'cancelled',
      'waiting',
      'cancelled',
      'cancelled',
    ])
  })

  void test('a bulk sort outside the allowlist is 400 E_INVALID_ARGUMENT', async () => {
    for (const sort of ['oldest', '', 1, ['created']]) {
      const { status, json } = await call(f.dashboard, '/api/bulk/cancel', {
        body: { filter: {}, sort, dryRun: true },
      })
      assert.equal(status, 400, JSON.stringify(sort))
      assert.equal(json.error.code, 'E_INVALID_ARGUMENT', JSON.stringify(sort))
    }
  })
})
