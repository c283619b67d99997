/**
 * The `cairn` bin's help, bad usage (exit 2) and bad store URLs (exit 1, `E_CODE: message`),
 * never showing a password.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { cairn } from './cli_fixture.ts'

void test('cairn --help lists every command; <command> --help shows its options', async () => {
  const main = await cairn(['--help'])
  assert.equal(main.code, 0)
  for (const name of ['dashboard', 'runs', 'run', 'retry', 'cancel'])
    assert.match(main.stdout, new RegExp(`^  ${name}\\s+\\S`, 'm'))
  const runs = await cairn(['runs', '--help'])
  assert.equal(runs.code, 0)
  assert.match(runs.stdout, /^Usage: cairn runs/)
  assert.match(runs.stdout, /--status <s>/)
  const viaHelp = await cairn(['help', 'cancel'])
  assert.match(viaHelp.stdout, /--compensate/)
})

void test('bad usage prints E_USAGE and exits 2', async () => {
  const cases = [
    [],
    ['frobnicate'],
    ['runs', '--store', 'x.db', '--bogus'],
    ['runs', '--store', 'x.db', '--status', 'sleeping'],
    ['runs', '--store', 'x.db', '--limit', 'ten'],
    ['run', '--store', 'x.db'],
    ['runs'],
  ]
  for (const args of cases) {
    const { code, stderr } = await cairn(args, { CAIRN_STORE: '' })
    assert.equal(code, 2, `cairn ${args.join(' ')}`)
    if (args.length > 0) assert.match(stderr, /^E_USAGE: /, `cairn ${args.join(' ')}`)
  }
})

void test('a store URL that cannot be opened is an E_ error naming it, with the password hidden', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-'))
  try {
    const cases: Array<[string, RegExp]> = [
      [
        'redis://admin:hunter2@127.0.0.1:6379/0',
        /^E_INVALID_ARGUMENT: --store: unsupported scheme "redis:" in redis:\/\/admin:\*\*\*@127\.0\.0\.1:6379\/0/,
      ],
      [
        'postgres://admin:hunter2@127.0.0.1:1/cairn',
        /^E_STORE_FAILURE: cannot open store postgres:\/\/admin:\*\*\*@127\.0\.0\.1:1\/cairn: /,
      ],
      [
        'mysql://admin:hunter2@127.0.0.1:1/cairn',
        /^E_STORE_FAILURE: cannot open store mysql:\/\/admin:\*\*\*@127\.0\.0\.1:1\/cairn: /,
      ],
      [`sqlite:${join(dir, 'missing.db')}`, /^E_INVALID_ARGUMENT: --store: no SQLite file at /],
      [
        'postgres://admin:hunter2@/cairn',
        /^E_INVALID_ARGUMENT: --store: postgres:\/\/admin:\*\*\*@\/cairn is not a valid URL/,
      ],
      [
        'mysql://admin:hunter2@',
        /^E_INVALID_ARGUMENT: --store: mysql:\/\/admin:\*\*\*@ is not a valid URL/,
      ],
      // Shapes WHATWG URL misreads: an unencoded @ in the user, / # ? in the password.
      ['postgres://ops@corp:hunter2@127.0.0.1:1/cairn', /^E_/],
      ['postgres://admin:hun/ter2@127.0.0.1:1/cairn', /^E_/],
      ['mysql://admin:hun#ter2@127.0.0.1:1/cairn', /^E_/],
      ['mysql://admin:hun?ter2@127.0.0.1:1/cairn', /^E_/],
    ]
    for (const [url, expected] of cases) {
      const { code, stdout, stderr } = await cairn(['runs', '--store', url])
      assert.equal(code, 1, url)
      assert.match(stderr, expected)
      assert.doesNotMatch(stdout + stderr, /hunter2|hun\/ter2|hun#ter2|hun\?ter2|ter2/)
    }
    const viaEnv = await cairn(['runs'], {
      CAIRN_STORE: 'postgres://admin:hunter2@127.0.0.1:1/cairn',
    })
    assert.equal(viaEnv.code, 1)
    assert.doesNotMatch(viaEnv.stderr, /hunter2/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
