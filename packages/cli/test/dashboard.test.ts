/**
 * `cairn dashboard` as a user starts it: a child process serving the console and the API over
 * a SQLite file (and Postgres and MariaDB), the token required; no token on a non-loopback host refused.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import type { Engine } from '@cairn/core'
import {
  BIN,
  cairn,
  cliStores,
  drivingEngine,
  freshDatabase,
  type Database,
} from './cli_fixture.ts'

const TOKEN = 'cli-test-token-0123456789abcdef'

interface Served {
  child: ChildProcess
  url: string
  stderr: () => string
}

/** Starts `cairn dashboard` and resolves with the URL it prints. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'dashboard', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /Cairn dashboard on (\S+)/.exec(stdout)
      if (match !== null) resolve(match[1] as string)
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stdout}${stderr}`)))
  })
  return { child, url, stderr: () => stderr }
}

async function stop(served: Served): Promise<number | null> {
  const exited = once(served.child, 'exit')
  served.child.kill('SIGTERM')
  const [code] = (await exited) as [number | null]
  return code
}

for (const kind of await cliStores()) {
  void describe(`cairn dashboard [${kind}]`, () => {
    let db: Database
    let engine: Engine
    before(async () => {
      db = await freshDatabase(kind)
      engine = await drivingEngine(await db.open())
      const { runId } = await engine.start('greet', 'ada', { runId: 'greet-1' })
      await engine.waitForRun(runId, { timeoutMs: 20_000 })
    })
    after(async () => {
      await engine.close()
      await db.drop()
    })

    void test('serves the console and the runs API to the token, 401 without it', async () => {
      const served = await serve(['--store', db.url, '--base-path', '/ops/'], {
        CAIRN_DASHBOARD_TOKEN: TOKEN,
      })
      try {
        assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/ops\/$/)
        const index = await fetch(served.url)
        assert.equal(index.status, 200)
        assert.match(index.headers.get('content-type') ?? '', /text\/html/)
        assert.match(await index.text(), /<html/i)
        const auth = { authorization: `Bearer ${TOKEN}` }
        const runs = await fetch(`${served.url}api/runs`, { headers: auth })
        assert.equal(runs.status, 200)
        const body = (await runs.json()) as { runs: Array<{ id: string; status: string }> }
        assert.deepEqual(
          body.runs.map((r) => [r.id, r.status]),
          [['greet-1', 'completed']],
        )
        const anonymous = await fetch(`${served.url}api/runs`)
        assert.equal(anonymous.status, 401)
        assert.equal(await stop(served), 0)
      } finally {
        served.child.kill()
      }
    })

    void test('--read-only: an action answers 403 and changes nothing', async () => {
      const served = await serve(['--store', db.url, '--read-only', '--token', TOKEN])
      try {
        const response = await fetch(`${served.url}api/runs/greet-1/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        })
        assert.equal(response.status, 403)
        assert.equal(
          ((await response.json()) as { error: { code: string } }).error.code,
          'E_FORBIDDEN',
        )
        assert.equal((await engine.getRun('greet-1'))?.status, 'completed')
        assert.equal(await stop(served), 0)
      } finally {
        served.child.kill()
      }
    })

    void test('with no token: one made for the session, in the printed address only', async () => {
      const served = await serve(['--store', db.url], { CAIRN_DASHBOARD_TOKEN: '' })
      try {
        const address = new URL(served.url)
        const token = address.searchParams.get('token') ?? ''
        assert.match(token, /^[A-Za-z0-9_-]{32}$/, 'a 192-bit URL-safe token')
        const base = `${address.origin}${address.pathname}`
        assert.equal((await fetch(`${base}api/runs`)).status, 401, 'other programs: no way in')
        const auth = { authorization: `Bearer ${token}` }
        assert.equal((await fetch(`${base}api/runs`, { headers: auth })).status, 200)
        const index = await fetch(served.url)
        assert.equal(index.status, 200, 'the console page itself is served at that address')
        assert.equal(served.stderr(), '', 'nothing about an open dashboard')
        assert.equal(await stop(served), 0)
      } finally {
        served.child.kill()
      }
      const again = await serve(['--store', db.url], { CAIRN_DASHBOARD_TOKEN: '' })
      try {
        assert.notEqual(
          new URL(again.url).searchParams.get('token'),
          new URL(served.url).searchParams.get('token'),
          'a new token per session',
        )
      } finally {
        again.child.kill()
      }
    })

    void test('--open on loopback: open to this machine without a token, and it says so', async () => {
      const served = await serve(['--store', db.url, '--open'], { CAIRN_DASHBOARD_TOKEN: '' })
      try {
        assert.equal(new URL(served.url).search, '')
        const runs = await fetch(`${served.url}api/runs`)
        assert.equal(runs.status, 200)
        assert.match(served.stderr(), /--open: the dashboard is open to every user and program/)
        assert.equal(await stop(served), 0)
      } finally {
        served.child.kill()
      }
    })
  })
}

void describe('cairn dashboard without a token', () => {
  void test('refuses a non-loopback host, saying how to pass a token', async () => {
    const { code, stdout, stderr } = await cairn(
      ['dashboard', '--store', 'sqlite:/nonexistent.db', '--host', '0.0.0.0', '--port', '0'],
      { CAIRN_DASHBOARD_TOKEN: '' },
    )
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, /^E_USAGE: refusing to serve on 0\.0\.0\.0 without a token you chose/)
    assert.match(stderr, /--token <t> or set CAIRN_DASHBOARD_TOKEN/)
  })
})

void describe('cairn dashboard --open, on loopback', () => {
  let db: Database
  before(async () => {
    db = await freshDatabase('sqlite')
    const store = await db.open()
    await store.open() // creates the file the command expects
    await store.close()
  })
  after(() => db.drop())

  void test('--host [::1] listens on ::1, and answers only to loopback names (DNS rebinding)', async () => {
    const served = await serve(['--store', db.url, '--host', '[::1]', '--open'], {
      CAIRN_DASHBOARD_TOKEN: '',
    })
    try {
      assert.match(served.url, /^http:\/\/\[::1\]:\d+\/$/)
      assert.equal((await fetch(`${served.url}api/runs`)).status, 200)
      const port = Number(new URL(served.url).port)
      // A page on attacker.example whose name was re-pointed at this machine.
      assert.equal(await statusWithHost(port, 'attacker.example'), 421)
      assert.equal(await statusWithHost(port, `localhost:${port}`), 200)
      assert.equal(await stop(served), 0)
    } finally {
      served.child.kill()
    }
  })

  void test('--open with a token is a usage error (which one was meant?)', async () => {
    const { code, stderr } = await cairn(['dashboard', '--store', db.url, '--open'], {
      CAIRN_DASHBOARD_TOKEN: TOKEN,
    })
    assert.equal(code, 2)
    assert.match(stderr, /^E_USAGE: --open serves without a token/)
  })
})

/** GET api/runs on [::1]:port with the Host header a browser would send for `host`. */
function statusWithHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '::1', port, path: '/api/runs', headers: { host } },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      },
    )
    request.once('error', reject)
    request.end()
  })
}
