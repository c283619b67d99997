/**
 * The catalogue: what no-nondeterminism reports in a workflow body, by the path api_paths.js
 * gives a callee, and which message (named by its fix) each gets. docs/lint.md explains every
 * entry, and every API deliberately left out.
 *
 * A body runs again from the top on every replay and must make the same `ctx` calls in the
 * same order. Each entry below can make it differ: a value that changes between the first run
 * and a replay (clock, randomness, the environment, the outside world), or a wait the engine
 * neither records nor can wake the run for (a plain timer).
 */
import { moduleOf } from './api_paths.js'

/** @typedef {'clock' | 'random' | 'timer' | 'io' | 'env'} MessageId */

/** Reads of the machine's clock → ctx.now(). */
const CLOCK_CALLS = [
  'Date.now',
  'performance.now',
  'process.hrtime',
  'process.hrtime.bigint',
  'process.uptime',
]

/** A new value on each call → ctx.sideEffect(). Global Web Crypto and node:crypto alike. */
const RANDOM_CALLS = [
  'Math.random',
  'crypto.randomUUID',
  'crypto.getRandomValues',
  'crypto.randomBytes',
  'crypto.randomInt',
  'crypto.randomFill',
  'crypto.randomFillSync',
]

/** Plain timers, global or from node:timers(/promises) → ctx.sleep(). */
const TIMER_CALLS = ['setTimeout', 'setInterval', 'setImmediate']

/**
 * Node modules each call of which reaches outside the process (files, processes, the network,
 * facts about the host) → a step.
 */
export const IO_MODULES = [
  'fs',
  'fs/promises',
  'child_process',
  'http',
  'https',
  'http2',
  'net',
  'tls',
  'dgram',
  'dns',
  'dns/promises',
  'os',
]

/** @type {ReadonlyMap<string, MessageId>} */
const CALLS = new Map([
  ...CLOCK_CALLS.map((path) => /** @type {const} */ ([path, 'clock'])),
  ...RANDOM_CALLS.map((path) => /** @type {const} */ ([path, 'random'])),
  ...TIMER_CALLS.map((path) => /** @type {const} */ ([path, 'timer'])),
  ['fetch', 'io'],
  // `Date()` ignores its arguments and returns the current time as a string.
  ['Date', 'clock'],
])

/**
 * What a call or `new` of the API at `path` is, or null when it is replay-safe.
 * @param {readonly string[]} path
 * @param {{ isNew: boolean, argumentCount: number, isIoModule: (module: string) => boolean }} call
 * @returns {MessageId | null}
 */
export function classifyCall(path, call) {
  const module = moduleOf(path)
  if (module !== null) return call.isIoModule(module) ? 'io' : null
  const api = path.join('.')
  if (call.isNew) {
    // `new Date(x)` is a fixed date; only `new Date()` reads the clock.
    if (api === 'Date') return call.argumentCount === 0 ? 'clock' : null
    return api === 'WebSocket' ? 'io' : null
  }
  if (api.startsWith('Temporal.Now.')) return 'clock'
  return CALLS.get(api) ?? null
}

/**
 * What a read of the API at `path` (not a call) is, or null.
 * @param {readonly string[]} path
 * @returns {MessageId | null}
 */
export function classifyRead(path) {
  return path.length === 2 && path[0] === 'process' && path[1] === 'env' ? 'env' : null
}

/**
 * How a message names the API: as the catalogue spells it (`Math.random()`, however the
 * source reached it), or the call as written with the module it came from.
 * @param {readonly string[]} path
 * @param {{ isNew: boolean, written: string }} call
 */
export function displayName(path, call) {
  const module = moduleOf(path)
  const prefix = call.isNew ? 'new ' : ''
  if (module === null) return `${prefix}${path.join('.')}()`
  const from = IO_MODULES.includes(module) ? `node:${module}` : module
  return `${prefix}${call.written}() from '${from}'`
}
