/**
 * A recorded history of a real checkout replays on the current code (docs/replay-testing.md):
 * tests/fixtures/checkout-approved.history.json was exported (engine.exportHistory) from a run of
 * this shop — an order above the approval threshold, approved, charged, shipped — and
 * `node ace durable:replay` replays it on the app's workflow classes and steps, as a run resuming
 * after a deploy would. A change that would park such runs fails it: the same history with a step
 * renamed (the code asking for `ship` where the history recorded another name, as a refactor
 * without `ctx.patched` does) exits 1 with production's E_NON_DETERMINISM message.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { tempDatabase } from './helpers/shop_server.ts'

const APP_ROOT = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/checkout-approved.history.json', import.meta.url))

interface Replayed {
  code: number
  output: string
}

async function replay(t: TestContext, file: string): Promise<Replayed> {
  // The fixture's payloads are plain JSON: the shop's codec must not expect encrypted ones.
  const { DURABLE_PAYLOAD_KEY: _plain, ...inherited } = process.env
  const env = { ...inherited, SQLITE_FILE: await tempDatabase(t), LOG_LEVEL: 'warn' }
  const args = ['--import=@poppinss/ts-exec', 'bin/console.ts', 'durable:replay', file]
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: APP_ROOT, env, timeout: 120_000 }, (error, out, err) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: `${out}${err}` }),
    )
  })
}

void test('the recorded checkout replays on the current code', async (t) => {
  const { code, output } = await replay(t, FIXTURE)
  assert.equal(code, 0, output)
  assert.match(
    output,
    /checkout v1, run .*: \d+ recorded position\(s\) replayed; the run completed/,
  )
})

void test('a renamed step fails the replay with production’s non-determinism message', async (t) => {
  const history = JSON.parse(await readFile(FIXTURE, 'utf8')) as {
    checkpoints: { name: string }[]
  }
  const ship = history.checkpoints.find((checkpoint) => checkpoint.name === 'ship')
  assert.ok(ship !== undefined, 'the fixture records the ship step')
  ship.name = 'ship-parcel'
  const changed = join(await tempDir(t), 'renamed.history.json')
  await writeFile(changed, JSON.stringify(history))
  const { code, output } = await replay(t, changed)
  assert.equal(code, 1, output)
  assert.match(output, /E_NON_DETERMINISM/)
  assert.match(output, /ship/)
})

async function tempDir(t: TestContext): Promise<string> {
  return join(await tempDatabase(t), '..')
}
