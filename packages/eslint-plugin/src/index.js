/**
 * @cairn/eslint-plugin — lint rules for Cairn workflows.
 *
 * A workflow body runs again from the top on every replay, and must make the same `ctx` calls
 * in the same order each time. `no-nondeterminism` reports what breaks that in a body (clock
 * reads, randomness, plain timers, I/O, process.env), each with the Cairn primitive that does
 * it replay-safely, and leaves step callbacks alone. It works on syntax alone; with type
 * information it is more precise (docs/lint.md).
 *
 *   import cairn from '@cairn/eslint-plugin'
 *   export default [cairn.configs.recommended]
 *
 * Plain JavaScript with JSDoc types, so ESLint loads it as it is, in an app and in this
 * repository alike; the build emits its declarations.
 */
import { createRequire } from 'node:module'
import { noNondeterminism } from './rules/no_nondeterminism.js'

/**
 * @typedef {object} CairnPlugin
 * @property {{ name: string, version: string }} meta
 * @property {{ 'no-nondeterminism': import('eslint').Rule.RuleModule }} rules
 * @property {{ recommended: import('eslint').Linter.Config }} configs `recommended`:
 *   no-nondeterminism as an error, on every file the config block covers (the rule only looks
 *   inside workflow bodies).
 */

/** @type {{ version: string }} */
const { version } = createRequire(import.meta.url)('../package.json')

/** @type {CairnPlugin} */
const plugin = {
  meta: { name: '@cairn/eslint-plugin', version },
  rules: {
    // typescript-eslint's rule type (typed TSESTree nodes) and ESLint's describe one object.
    'no-nondeterminism': /** @type {import('eslint').Rule.RuleModule} */ (
      /** @type {unknown} */ (noNondeterminism)
    ),
  },
  configs: { recommended: {} },
}

plugin.configs.recommended = {
  name: '@cairn/recommended',
  plugins: { '@cairn': plugin },
  rules: { '@cairn/no-nondeterminism': /** @type {const} */ ('error') },
}

export default plugin
