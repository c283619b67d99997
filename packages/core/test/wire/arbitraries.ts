/**
 * fast-check arbitraries for wire messages: valid ones of each type (ids and names up to their
 * limits, counted in code points, with astral characters; integers up to their bounds), and
 * mutations of them (a field dropped, a field added, a value replaced by one of another type,
 * an integer out of range, a string with a control character, a list too long or repeating).
 * No generated string holds a lone surrogate: that rule is the schema's documented gap, tested
 * apart.
 */
import fc from 'fast-check'
import { MAX_DURATION_MS, MAX_LIST_LENGTH, MAX_NAME_LENGTH } from '@cairn/core/wire'

const MAX_ID = 255
const MAX_TASK_ID = 1400
const MAX_EPOCH = 8_640_000_000_000_000

/** One code point, never a control character or a surrogate half; astral ones too. */
export const char = fc
  .oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 6 },
    { arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }), weight: 2 },
    { arbitrary: fc.integer({ min: 0xe000, max: 0xffff }), weight: 1 },
    { arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }), weight: 2 },
  )
  .map((c) => String.fromCodePoint(c))

/** A control character: C0, DEL or C1. */
export const control = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((c) => String.fromCodePoint(c))

/** Text of 1 to `max` code points: short ones, and ones at the limit. */
function text(max: number): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.string({ unit: char, minLength: 1, maxLength: 12 }), weight: 4 },
    { arbitrary: fc.string({ unit: char, minLength: max - 2, maxLength: max }), weight: 1 },
  )
}

const id = text(MAX_ID)
const name = text(MAX_NAME_LENGTH)
const taskId = text(MAX_TASK_ID)
const payload = fc.oneof(fc.json(), fc.string({ unit: char }), fc.constant(''))
const freeText = fc.string({ unit: 'binary' })
const names = fc.uniqueArray(name, { maxLength: 4 })
const epochMs = fc.integer({ min: 0, max: MAX_EPOCH })
const duration = fc.integer({ min: 1, max: MAX_DURATION_MS })
const seq = fc.maxSafeNat()
const attempt = fc.integer({ min: 1, max: MAX_DURATION_MS })
const count = fc.integer({ min: 0, max: 1_000_000 })

export const task = fc.record(
  {
    v: fc.constant(1),
    type: fc.constant('task'),
    taskId,
    runId: id,
    seq,
    attempt,
    step: name,
    input: payload,
    requires: names,
    timeoutMs: fc.option(duration, { nil: null }),
    heartbeatIntervalMs: duration,
    dispatchedAt: epochMs,
    traceparent: name,
  },
  {
    requiredKeys: [
      'v',
      'type',
      'taskId',
      'runId',
      'seq',
      'attempt',
      'step',
      'input',
      'requires',
      'timeoutMs',
      'heartbeatIntervalMs',
      'dispatchedAt',
    ],
  },
)

const error = fc.record(
  {
    name: freeText,
    message: freeText,
    code: freeText,
    stack: freeText,
    retryable: fc.boolean(),
    retryAfterMs: fc.integer({ min: 0, max: MAX_DURATION_MS }),
    detail: payload,
  },
  { requiredKeys: ['name', 'message'] },
)

export const result = fc.record({
  v: fc.constant(1),
  type: fc.constant('result'),
  taskId,
  runId: id,
  seq,
  attempt,
  workerId: id,
  startedAt: epochMs,
  finishedAt: epochMs,
  outcome: fc.oneof(
    fc.record({ status: fc.constant('completed'), output: payload }),
    fc.record({ status: fc.constant('failed'), error }),
  ),
})

export const heartbeat = fc.record(
  {
    v: fc.constant(1),
    type: fc.constant('heartbeat'),
    taskId,
    runId: id,
    seq,
    attempt,
    workerId: id,
    at: epochMs,
    progress: payload,
  },
  { requiredKeys: ['v', 'type', 'taskId', 'runId', 'seq', 'attempt', 'workerId', 'at'] },
)

export const announce = fc.record(
  {
    v: fc.constant(1),
    type: fc.constant('announce'),
    workerId: id,
    protocols: fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 4 }),
    host: name,
    pid: fc.option(fc.integer({ min: 0, max: MAX_DURATION_MS }), { nil: null }),
    runtime: name,
    steps: names,
    capabilities: names,
    concurrency: fc.record(
      { mode: fc.constantFrom('fixed', 'adaptive'), limit: count, min: count, max: count },
      { requiredKeys: ['mode', 'limit'] },
    ),
    inFlight: count,
    startedAt: epochMs,
    at: epochMs,
    leaving: fc.boolean(),
  },
  {
    requiredKeys: [
      'v',
      'type',
      'workerId',
      'protocols',
      'host',
      'pid',
      'runtime',
      'steps',
      'capabilities',
      'concurrency',
      'inFlight',
      'startedAt',
      'at',
    ],
  },
)

export const message = fc.oneof(task, result, heartbeat, announce)

/** Values a mutation puts in place of another. */
const BOUNDS = [
  -1,
  0,
  1,
  2,
  999,
  1000,
  1001,
  1_000_000,
  1_000_001,
  MAX_DURATION_MS,
  MAX_DURATION_MS + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  MAX_EPOCH,
  MAX_EPOCH + 1,
  0.5,
  1.5,
  -0.5,
  1e21,
  -1e21,
]
const nasty: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...BOUNDS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc
    .tuple(
      fc.string({ unit: char, maxLength: 5 }),
      control,
      fc.string({ unit: char, maxLength: 5 }),
    )
    .map(([a, c, b]) => a + c + b),
  fc
    .constantFrom(
      MAX_ID,
      MAX_ID + 1,
      MAX_NAME_LENGTH,
      MAX_NAME_LENGTH + 1,
      MAX_TASK_ID,
      MAX_TASK_ID + 1,
    )
    .chain((length) => fc.string({ unit: char, minLength: length, maxLength: length })),
  fc.constantFrom<unknown>(
    '',
    null,
    true,
    false,
    [],
    {},
    1,
    'task',
    'result',
    'completed',
    'failed',
    'fixed',
    'adaptive',
    ['gpu', 'gpu'],
    [1, 1],
    Array.from({ length: MAX_LIST_LENGTH }, (_, i) => `c${i}`),
    Array.from({ length: MAX_LIST_LENGTH + 1 }, (_, i) => `c${i}`),
    { status: 'completed', output: '{}' },
    { status: 'failed', error: { name: 'Error', message: 'no' } },
    { mode: 'fixed', limit: 1 },
  ),
)

const FIELD_NAMES = [
  'v',
  'type',
  'taskId',
  'runId',
  'seq',
  'attempt',
  'step',
  'input',
  'requires',
  'timeoutMs',
  'heartbeatIntervalMs',
  'dispatchedAt',
  'traceparent',
  'workerId',
  'startedAt',
  'finishedAt',
  'outcome',
  'status',
  'output',
  'error',
  'name',
  'message',
  'code',
  'stack',
  'retryable',
  'retryAfterMs',
  'detail',
  'at',
  'progress',
  'protocols',
  'host',
  'pid',
  'runtime',
  'steps',
  'capabilities',
  'concurrency',
  'mode',
  'limit',
  'min',
  'max',
  'inFlight',
  'leaving',
  '__proto__',
  'constructor',
  'toString',
  '',
]

export interface Mutation {
  kind: 'drop' | 'add' | 'replace'
  /** Which node (object or array, in walk order) or which leaf: taken modulo their count. */
  pick: number
  key: string
  value: unknown
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('drop', 'add', 'replace'),
  pick: fc.nat(),
  key: fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 8 })),
  value: nasty,
})

type Node = Record<string, unknown> | unknown[]

function containers(value: unknown, out: Node[] = []): Node[] {
  if (value !== null && typeof value === 'object') {
    out.push(value as Node)
    for (const child of Object.values(value)) containers(child, out)
  }
  return out
}

/** Applies mutations to a copy of `message`; the result is JSON data (possibly invalid). */
export function mutate(message: object, mutations: readonly Mutation[]): unknown {
  const copy = structuredClone(message) as Record<string, unknown>
  for (const { kind, pick, key, value: generated } of mutations) {
    // A copy: fast-check may hand the same value to two mutations, which would make a cycle.
    const value = structuredClone(generated)
    const nodes = containers(copy)
    const node = nodes[pick % nodes.length] as Node
    const keys = Object.keys(node)
    if (kind === 'add') {
      if (Array.isArray(node)) node.push(value)
      // defineProperty: an own "__proto__" key, as JSON text makes one.
      else
        Object.defineProperty(node, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        })
    } else if (keys.length > 0) {
      const target = keys[Math.floor(pick / nodes.length) % keys.length] as string
      if (kind === 'drop') {
        if (Array.isArray(node)) node.splice(Number(target), 1)
        else delete node[target]
      } else {
        ;(node as Record<string, unknown>)[target] = value
      }
    }
  }
  return copy
}
