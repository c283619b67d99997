/**
 * Run ids that URL parsers would resolve away as path segments (`.`, `..`) are opened, read,
 * streamed and acted on through the real server: they travel as `!` + id (see
 * src/api/run_id_param.ts and console/run_path.js, which must agree), and an id that merely
 * starts with `!` is left alone.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { serveDashboard, type ServedDashboard } from '@cairn/dashboard'
import { runPath } from '../console/run_path.js'
import { runIdParam, runIdSegment } from '../src/api/run_id_param.ts'
import { TOKEN, fixture, type Fixture } from './helpers.ts'

const IDS = ['.', '..', '!.', '!!..', '!abc', '...', 'a.b']

void describe('run ids that are dot segments', () => {
  let f: Fixture
  let served: ServedDashboard
  before(async () => {
    f = await fixture()
    for (const id of IDS) await f.engine.start('wait', {}, { runId: id })
    await f.engine.whenQuiet()
    served = await serveDashboard(f.dashboard)
  })
  after(async () => {
    await served.close()
    await f.close()
  })

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${served.url}/api/${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    })

  void test('the console and the server agree on the path of every id', () => {
    for (const id of [...IDS, '!', '!!', 'x!.', '.!']) {
      const segment = runIdSegment(id)
      assert.equal(runPath(id), `runs/${encodeURIComponent(segment)}`, id)
      const c = { req: { param: () => segment } } as unknown as Parameters<typeof runIdParam>[0]
      assert.equal(runIdParam(c), id, id)
    }
  })

  void test('each is read, its steps listed and a signal sent, through the real server', async () => {
    for (const id of IDS) {
      const detail = await api(runPath(id))
      assert.equal(detail.status, 200, id)
      assert.equal(((await detail.json()) as { run: { id: string } }).run.id, id)
      assert.equal((await api(`${runPath(id)}/steps`)).status, 200, id)
      const signal = await api(`${runPath(id)}/signal`, {
        method: 'POST',
        body: JSON.stringify({ name: 'go', payload: id }),
      })
      assert.equal(signal.status, 200, id)
      assert.deepEqual(await f.engine.waitForRun(id, { timeoutMs: 5_000 }), {
        runId: id,
        status: 'completed',
        output: id,
      })
    }
  })
})
