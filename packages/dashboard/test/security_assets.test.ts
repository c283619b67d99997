/**
 * Security: the console's files come from an allowlist made at startup; no request path
 * reaches a file outside it, whatever its encoding. Raw requests go through the Node adapter
 * so no URL parser tidies them first.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { serveDashboard, type ServedDashboard } from '@cairn/dashboard'
import { fixture, type Fixture } from './helpers.ts'

/** Sends `path` byte for byte in a request line; resolves with the status code. */
function rawGet(url: string, path: string): Promise<number> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`,
      ),
    )
    let text = ''
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
    socket.on('error', reject)
  })
}

void describe('security: console assets', () => {
  let dir: string
  let f: Fixture
  let served: ServedDashboard
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-console-'))
    const consoleDir = join(dir, 'console')
    mkdirSync(join(consoleDir, 'js'), { recursive: true })
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>')
    writeFileSync(join(consoleDir, 'js', 'app.js'), 'console.log(1)')
    writeFileSync(join(consoleDir, '.env'), 'SECRET=1')
    writeFileSync(join(consoleDir, '.draft.js'), 'a dotfile of a servable type')
    writeFileSync(join(consoleDir, 'notes.md'), 'not a servable type')
    writeFileSync(join(dir, 'secret.txt'), 'outside the console')
    f = await fixture({ consoleDir, basePath: '/ops' })
    served = await serveDashboard(f.dashboard)
    writeFileSync(join(consoleDir, 'late.js'), 'added after startup')
  })
  after(async () => {
    await served.close()
    await f.close()
    rmSync(dir, { recursive: true, force: true })
  })

  void test('listed files are served with their type', async () => {
    const app = await fetch(`${served.url}/ops/assets/js/app.js`)
    assert.equal(app.status, 200)
    assert.equal(app.headers.get('content-type'), 'text/javascript; charset=utf-8')
    assert.equal(await app.text(), 'console.log(1)')
    assert.equal((await fetch(`${served.url}/ops/`)).status, 200)
  })

  void test('traversal and encodings are 400, dotfiles and unlisted files 404', async () => {
    // Traversal and separators in any encoding: 400 before any lookup; names not in the
    // allowlist: 404; the bare directory is no asset, so the authenticated API answers 401.
    const expected: Array<[string, number]> = [
      ['/ops/assets/../../secret.txt', 400],
      ['/ops/assets/..%2f..%2fsecret.txt', 400],
      ['/ops/assets/%2e%2e/%2e%2e/secret.txt', 400],
      ['/ops/assets/js%2fapp.js', 404],
      ['/ops/assets/js%5capp.js', 400],
      ['/ops/assets/js\\app.js', 400],
      ['/ops/assets/..\\..\\secret.txt', 400],
      ['/ops/assets//etc/passwd', 404],
      ['/ops/assets/.env', 404],
      ['/ops/assets/.draft.js', 404],
      ['/ops/assets/notes.md', 404],
      ['/ops/assets/late.js', 404],
      ['/ops/assets/js/../js/app.js', 400],
      ['/ops/assets/', 401],
    ]
    for (const [path, status] of expected) {
      assert.equal(await rawGet(served.url, path), status, path)
    }
  })
})
