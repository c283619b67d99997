/**
 * Every number the `cairn` bin takes on its command line, fed what a careless user types (NaN,
 * Infinity, -1, fractions, exponents, hex, 2^31, 2^53, words, nothing): refused as bad usage
 * (exit 2, `E_USAGE` naming the flag) before any store is opened, or taken — then the command
 * goes on to open its store, here a missing SQLite file, and fails on that instead. Run through
 * the CLI's `main` in this process: the same code the bin runs, a hundred times faster.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cairnWithoutStore as cairn } from './in_process.ts'

const TYPED = [
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1',
  '0.5',
  '1e3',
  '0x10',
  ' 7',
  '2147483648',
  '9007199254740993',
  'ten',
  '',
]

interface Flag {
  args: (value: string) => string[]
  name: string
  accepts(value: string): boolean
}

const whole = (min: number, max: number) => (v: string) =>
  /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max

const FLAGS: Flag[] = [
  { name: 'limit', args: (v) => ['runs', `--limit=${v}`], accepts: whole(1, 1000) },
  { name: 'stuck', args: (v) => ['runs', `--stuck=${v}`], accepts: whole(0, 525_600) },
  { name: 'limit', args: (v) => ['run', 'r1', `--limit=${v}`], accepts: whole(1, 1000) },
  {
    name: 'from-seq',
    args: (v) => ['run', 'r1', `--from-seq=${v}`],
    accepts: whole(0, Number.MAX_SAFE_INTEGER),
  },
  { name: 'port', args: (v) => ['dashboard', `--port=${v}`], accepts: whole(0, 65_535) },
  { name: 'limit', args: (v) => ['schedules', `--limit=${v}`], accepts: whole(1, 1000) },
]

for (const flag of FLAGS) {
  const command = flag.args('N').join(' ').replace('=N', '')
  void test(`cairn ${command}: bad numbers are usage errors, valid ones reach the store`, async () => {
    for (const value of TYPED) {
      const { code, stderr } = await cairn(flag.args(value))
      if (flag.accepts(value)) {
        assert.equal(code, 1, `${command} ${JSON.stringify(value)}: ${stderr}`)
        assert.match(stderr, /no SQLite file/, `${command} ${JSON.stringify(value)}`)
      } else {
        assert.equal(code, 2, `${command} ${JSON.stringify(value)}: ${stderr}`)
        assert.match(stderr, new RegExp(`^E_USAGE: --${flag.name} `), JSON.stringify(value))
      }
    }
  })
}
