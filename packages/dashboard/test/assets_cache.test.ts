/**
 * Console files carry a strong ETag: a browser revalidating what it holds gets 304 without a
 * body; a file edited on disk is served anew under a new tag; one deleted since startup is 404.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { ORIGIN, fixture, type Fixture } from './helpers.ts'

void describe('console assets: ETags and revalidation', () => {
  let dir: string
  let f: Fixture
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-assets-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>')
    writeFileSync(join(dir, 'app.js'), 'console.log(1)')
    writeFileSync(join(dir, 'gone.js'), 'deleted after startup')
    f = await fixture({ consoleDir: dir })
  })
  after(async () => {
    await f.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const get = (path: string, headers: Record<string, string> = {}) =>
    f.dashboard.fetch(new Request(`${ORIGIN}${path}`, { headers }))

  void test('a held version is 304 with no body; any other tag gets the file', async () => {
    const first = await get('/assets/app.js')
    assert.equal(first.status, 200)
    const etag = first.headers.get('etag') ?? ''
    assert.match(etag, /^"[\w-]{27}"$/)
    assert.equal(first.headers.get('cache-control'), 'no-cache')
    assert.equal(await first.text(), 'console.log(1)')
    for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get('/assets/app.js', { 'if-none-match': held })
      assert.equal(again.status, 304, held)
      assert.equal(again.headers.get('etag'), etag)
      assert.equal(await again.text(), '')
    }
    const other = await get('/assets/app.js', { 'if-none-match': '"other"' })
    assert.equal(other.status, 200)
    assert.equal(await other.text(), 'console.log(1)')
    const page = await get('/')
    assert.equal((await get('/', { 'if-none-match': page.headers.get('etag') ?? '' })).status, 304)
  })

  void test('a file edited on disk is served anew under a new tag', async () => {
    const before = (await get('/assets/app.js')).headers.get('etag') ?? ''
    writeFileSync(join(dir, 'app.js'), 'console.log("edited")')
    const after = await get('/assets/app.js', { 'if-none-match': before })
    assert.equal(after.status, 200)
    assert.equal(await after.text(), 'console.log("edited")')
    assert.notEqual(after.headers.get('etag'), before)
  })

  void test('a file deleted since startup is 404', async () => {
    unlinkSync(join(dir, 'gone.js'))
    const gone = await get('/assets/gone.js')
    assert.equal(gone.status, 404)
    assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'E_NOT_FOUND')
  })
})
