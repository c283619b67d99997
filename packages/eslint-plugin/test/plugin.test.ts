/**
 * The plugin as an app uses it: the `recommended` flat config through ESLint's own API, its
 * types accepted by `defineConfig` and typescript-eslint's `config`, and the message ids that
 * suppressions and tests name (stable).
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { ESLint } from 'eslint'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'
import cairn from '@cairn/eslint-plugin'

const WORKFLOW = `
import { Engine } from '@cairn/core'
declare const engine: Engine
engine.register('order', 1, async (ctx) => {
  const at = await ctx.localStep('stamp', () => Date.now())
  return { at, late: Date.now() > at }
})
`

void test('meta names the package and its version', async () => {
  const manifest = JSON.parse(
    await readFile(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { name: string; version: string }
  assert.deepEqual(cairn.meta, { name: manifest.name, version: manifest.version })
})

void test('the message ids are stable', () => {
  const messages = cairn.rules['no-nondeterminism'].meta?.messages ?? {}
  assert.deepEqual(Object.keys(messages), ['clock', 'random', 'timer', 'io', 'env'])
})

void test('recommended turns no-nondeterminism on as an error: a body reading the clock fails lint', async () => {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      cairn.configs.recommended,
    ],
  })
  const [result] = await eslint.lintText(WORKFLOW, { filePath: 'workflow.ts' })
  const findings = result?.messages.map((m) => [m.ruleId, m.severity, m.line, m.message])
  assert.deepEqual(findings, [
    [
      '@cairn/no-nondeterminism',
      2,
      6,
      "Date.now() reads this machine's clock, which has moved on when the run replays. Use ctx.now(): the time the run last received an outcome, the same on every replay.",
    ],
  ])
})

void test('the recommended config is accepted by defineConfig and typescript-eslint', () => {
  // Compiles: `npm run typecheck` is the assertion; at run time both keep the block.
  const withEslint = defineConfig([cairn.configs.recommended])
  const withTypescriptEslint = tseslint.config(cairn.configs.recommended)
  assert.equal(withEslint.at(-1)?.name, '@cairn/recommended')
  assert.equal(withTypescriptEslint.at(-1)?.name, '@cairn/recommended')
})
