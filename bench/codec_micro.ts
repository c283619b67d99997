/**
 * Micro benchmark of the default codec: µs per encode and per decode of typical payloads,
 * next to bare JSON.stringify / JSON.parse as the floor. Each case runs in a fresh process
 * (so one case's shapes do not slow another's code) and reports the best of several rounds,
 * because this machine is noisy. Usage: node bench/codec_micro.ts [case]
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createCodec } from '../packages/core/src/codec/index.ts'

const ROUNDS = 15

const cases: Record<string, { value: unknown; iterations: number }> = {
  'small plain': { value: { i: 3, ok: true, s: 'x' }, iterations: 200_000 },
  'small with Date': {
    value: { i: 3, ok: true, at: new Date(1_700_000_000_000) },
    iterations: 200_000,
  },
  'small with array': {
    value: { id: 'order-17', items: [1, 2, 3], total: 12.5 },
    iterations: 200_000,
  },
  'order, 20 lines': {
    value: {
      id: 'order-17',
      customer: { id: 'c-9', name: 'Ada', tags: ['vip', 'eu'] },
      lines: Array.from({ length: 20 }, (_, i) => ({ sku: `sku-${i}`, qty: i, price: i * 1.5 })),
    },
    iterations: 20_000,
  },
  '1e5 numbers': { value: Array.from({ length: 100_000 }, (_, i) => i), iterations: 10 },
}

/** Best µs per call of `fn` over ROUNDS rounds of `n` calls. */
function bestMicros(fn: () => unknown, n: number): number {
  let best = Number.POSITIVE_INFINITY
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint()
    for (let i = 0; i < n; i++) fn()
    best = Math.min(best, Number(process.hrtime.bigint() - started) / n / 1000)
  }
  return best
}

function measure(name: string): Record<string, number> {
  const { value, iterations } = cases[name] as { value: unknown; iterations: number }
  const codec = createCodec()
  const text = codec.encode(value)
  const json = JSON.stringify(value)
  return {
    encode: bestMicros(() => codec.encode(value), iterations),
    decode: bestMicros(() => codec.decode(text), iterations),
    stringify: bestMicros(() => JSON.stringify(value), iterations),
    parse: bestMicros(() => JSON.parse(json) as unknown, iterations),
  }
}

const only = process.argv[2]
if (only !== undefined) {
  console.log(JSON.stringify(measure(only)))
} else {
  const self = fileURLToPath(import.meta.url)
  console.log(
    'µs per call'.padEnd(18),
    ['encode', 'decode', 'JSON.stringify', 'JSON.parse'].join('  '),
  )
  for (const name of Object.keys(cases)) {
    const out = execFileSync(process.execPath, [self, name], { encoding: 'utf8' })
    const r = JSON.parse(out) as Record<string, number>
    const cells = [r.encode, r.decode, r.stringify, r.parse].map((us) =>
      (us ?? 0).toFixed(3).padStart(8),
    )
    console.log(name.padEnd(18), cells.join('  '))
  }
}
