/**
 * `GET api/runs/:id/history` over real HTTP: the body is engine.exportHistory's document, sent
 * as a file named after the run — a name made safe whatever the run id holds (quotes,
 * slashes, non-ASCII, a right-to-left override) — behind the same auth as every read, and
 * served by a read-only dashboard too.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { serveDashboard, type ServedDashboard } from '@cairn/dashboard'
import { runPath } from '../console/run_path.js'
import { attachmentDisposition } from '../src/http/content_disposition.ts'
import { TOKEN, fixture, type Fixture, type Json } from './helpers.ts'

const SUFFIX = '.history.json'

/** `filename` and the decoded `filename*` of a Content-Disposition header. */
function fileNames(header: string): { plain: string; extended: string | null } {
  const plain = /^attachment; filename="([^"]*)"(?:;|$)/.exec(header)
  assert.ok(plain, header)
  const extended = /; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(header)
  return {
    plain: plain[1] as string,
    extended: extended ? decodeURIComponent(extended[1] as string) : null,
  }
}

/** What no saved file name may contain: separators, quotes, controls, bidi overrides. */
const UNSAFE = /[/\\"<>:|?*\p{Cc}\p{Cf}]/u

void describe('dashboard history download', () => {
  let f: Fixture
  let served: ServedDashboard
  before(async () => {
    f = await fixture()
    served = await serveDashboard(f.dashboard)
  })
  after(async () => {
    await served.close()
    await f.close()
  })

  const get = (path: string, bearer = true) =>
    fetch(`${served.url}/api/${path}`, {
      headers: bearer ? { authorization: `Bearer ${TOKEN}` } : {},
    })

  void test('the body is the run’s exportHistory, as an attachment', async () => {
    const { runId } = await f.engine.start('greet', 'Ada <&>')
    await f.engine.waitForRun(runId, { timeoutMs: 5_000 })
    const response = await get(`${runPath(runId)}/history`)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(response.headers.get('cache-control'), 'no-store')
    assert.equal(
      response.headers.get('content-disposition'),
      `attachment; filename="${runId}${SUFFIX}"`,
    )
    const text = await response.text()
    assert.doesNotMatch(text, /[<>&]/, 'markup characters travel escaped')
    const body = JSON.parse(text) as Json
    const expected = await f.engine.exportHistory(runId)
    // Two exports differ only in when they were made.
    assert.ok(body.exportedAt <= expected.exportedAt)
    assert.deepEqual({ ...body, exportedAt: 0 }, { ...expected, exportedAt: 0 })
    assert.equal(body.format, 'cairn.history')
    assert.equal(body.checkpoints.length, 1)
  })

  void test('an unknown run is 404 E_RUN_NOT_FOUND; no credentials is 401', async () => {
    const unknown = await get('runs/no-such-run/history')
    assert.equal(unknown.status, 404)
    assert.equal(((await unknown.json()) as Json).error.code, 'E_RUN_NOT_FOUND')
    assert.equal(unknown.headers.get('content-disposition'), null)
    const { runId } = await f.engine.start('greet', 'Bo')
    assert.equal((await get(`${runPath(runId)}/history`, false)).status, 401)
  })

  void test('the file name is safe for any run id', async () => {
    const ids = [
      'quote"d; filename="evil.sh',
      'parent/3',
      'a/../../etc/passwd',
      'ünïcødé ✓ 注文',
      'emoji 🚀 run',
      'spoof \u202Egnp.exe',
      '..',
      `${'long-'.repeat(50)}end`,
    ]
    for (const id of ids) {
      await f.engine.start('wait', {}, { runId: id })
      const response = await get(`${runPath(id)}/history`)
      assert.equal(response.status, 200, id)
      assert.equal(((await response.json()) as Json).run.id, id)
      const { plain, extended } = fileNames(response.headers.get('content-disposition') ?? '')
      assert.match(plain, /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.history\.json$/, id)
      assert.ok(plain.length <= 120 + SUFFIX.length, id)
      for (const name of [plain, extended ?? plain]) {
        assert.doesNotMatch(name, UNSAFE, `${id} → ${name}`)
        assert.ok(!name.startsWith('.'), `${id} → ${name}`)
        assert.ok(name.endsWith(SUFFIX), `${id} → ${name}`)
      }
    }
  })

  void test('non-ASCII survives in filename*; plain ids need no filename*', () => {
    assert.deepEqual(fileNames(attachmentDisposition('ünïcødé ✓ 注文', SUFFIX)), {
      plain: `_n_c_d______${SUFFIX}`,
      extended: `ünïcødé ✓ 注文${SUFFIX}`,
    })
    assert.deepEqual(fileNames(attachmentDisposition("it's (1)*", SUFFIX)), {
      plain: `it_s__1__${SUFFIX}`,
      extended: `it's (1)*${SUFFIX}`.replace('*', '_'),
    })
    assert.equal(
      attachmentDisposition('run-1.a_b', SUFFIX),
      `attachment; filename="run-1.a_b${SUFFIX}"`,
    )
    assert.equal(fileNames(attachmentDisposition('..', SUFFIX)).plain, `__${SUFFIX}`)
    // (The Node adapter refuses a backslash in any request path, so no such id reaches it.)
    assert.deepEqual(fileNames(attachmentDisposition('..\\..\\win', SUFFIX)), {
      plain: `___.._win${SUFFIX}`,
      extended: null,
    })
    assert.equal(fileNames(attachmentDisposition('a\u202Eb', SUFFIX)).extended, null)
  })

  void test('a read-only dashboard serves it too', async () => {
    const readOnly = await fixture({ readOnly: true }, f.engine)
    try {
      const { runId } = await f.engine.start('greet', 'Cy')
      const response = await readOnly.dashboard.fetch(
        new Request(`http://dash.test/api/${runPath(runId)}/history`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        }),
      )
      assert.equal(response.status, 200)
      assert.equal(((await response.json()) as Json).run.id, runId)
    } finally {
      await readOnly.dashboard.close()
    }
  })
})
