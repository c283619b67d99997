/**
 * The API an expression names, spelled the way the catalogue (nondeterministic_apis.js) spells
 * it, whatever way the source reaches it:
 *
 *   Date.now · globalThis.Date.now · Date['now']      → Date.now
 *   crypto.randomUUID · globalThis.crypto?.randomUUID → crypto.randomUUID
 *   import { randomUUID as id } from 'node:crypto'    → crypto.randomUUID (for `id`)
 *   import { readFile } from 'node:fs/promises'       → module:fs/promises.readFile
 *
 * Null when the expression names a value of the file's own (a shadowed `Date`, a local `Math`
 * object) or a member only known at run time (`Math[name]`).
 */
import { bindingOf } from './bindings.js'
import { staticMemberName, unwrapExpression } from './syntax.js'

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */

/** Names of the global object itself: `globalThis.Date` is `Date`. */
const GLOBAL_OBJECT = new Set(['globalThis', 'global', 'self', 'window'])

/**
 * Node modules whose exports are the globals of the same name, so that importing one changes
 * nothing: `import { performance } from 'node:perf_hooks'` is the global `performance`,
 * `node:timers/promises`' `setTimeout` is awaited but is the same plain timer.
 * @type {ReadonlyMap<string, readonly string[]>}
 */
const GLOBAL_MODULES = new Map([
  ['process', ['process']],
  ['perf_hooks', []],
  ['timers', []],
  ['timers/promises', []],
  ['crypto', ['crypto']],
])

/**
 * @param {SourceCode} sourceCode
 * @param {Node} expression
 * @returns {string[] | null}
 */
export function apiPath(sourceCode, expression) {
  const path = rawPath(sourceCode, unwrapExpression(expression))
  // `webcrypto` from node:crypto is the global `crypto`.
  if (path !== null && path[0] === 'crypto' && path[1] === 'webcrypto') path.splice(1, 1)
  return path
}

/**
 * @param {SourceCode} sourceCode
 * @param {Node} node
 * @returns {string[] | null}
 */
function rawPath(sourceCode, node) {
  if (node.type === 'MemberExpression') {
    const name = staticMemberName(node)
    const base = name === null ? null : rawPath(sourceCode, unwrapExpression(node.object))
    return base === null || name === null ? null : [...base, name]
  }
  if (node.type !== 'Identifier') return null
  const binding = bindingOf(sourceCode, node)
  if (binding.kind === 'local') return null
  if (binding.kind === 'global') return GLOBAL_OBJECT.has(node.name) ? [] : [node.name]
  const root = GLOBAL_MODULES.get(binding.module) ?? [`module:${binding.module}`]
  return binding.imported === null ? [...root] : [...root, binding.imported]
}

/**
 * The module a path comes from, when it is not one of the global-equivalent modules.
 * @param {readonly string[]} path
 * @returns {string | null}
 */
export function moduleOf(path) {
  const root = path[0]
  return root?.startsWith('module:') ? root.slice('module:'.length) : null
}
