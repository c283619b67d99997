/**
 * Configure's lint offer on fresh AdonisJS apps (fresh_app.ts), run as a user runs it: `node
 * ace configure @cairn/adonis` in a child process, with no terminal (so the default, yes, is
 * taken without a prompt). The app's ESLint then reports a workflow body that reads the clock.
 * @cairn/eslint-plugin is installed in these apps (the repository's node_modules).
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import {
  ace,
  createFreshApp,
  runInApp,
  snapshot,
  writeFileIn,
  type CommandResult,
} from './fresh_app.ts'

const ESLINT = fileURLToPath(new URL('../../../node_modules/eslint/bin/eslint.js', import.meta.url))

/** A flat config of the kind `npm init adonisjs` writes, on defineConfig, with types. */
const ESLINT_CONFIG = `import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

export default defineConfig({
  files: ['**/*.ts'],
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
  },
})
`

const CLOCK_WORKFLOW = `import { BaseWorkflow } from '@cairn/adonis'
import type { WorkflowContext } from '@cairn/core'

export default class StampWorkflow extends BaseWorkflow<null, number> {
  static workflow = { name: 'stamp', version: 1 }

  async run(ctx: WorkflowContext): Promise<number> {
    const recorded = await ctx.localStep('stamp', () => Date.now())
    return Date.now() - recorded
  }
}
`

function output(result: CommandResult): string {
  return stripVTControlCharacters(result.stdout + result.stderr)
}

function assertSucceeded(result: CommandResult): void {
  assert.equal(result.exitCode, 0, output(result))
}

async function appWithEslintConfig(
  t: { after: (fn: () => Promise<void>) => void },
  config: string,
): Promise<string> {
  const root = await createFreshApp((remove) => t.after(remove))
  await writeFileIn(root, 'eslint.config.js', config)
  return root
}

void describe('node ace configure @cairn/adonis: the lint offer', () => {
  void test("adds the recommended config to the app's eslint.config.js; the app's lint then reports a body reading the clock", async (t) => {
    const root = await appWithEslintConfig(t, ESLINT_CONFIG)
    const configured = await ace(root, 'configure', '@cairn/adonis')
    assertSucceeded(configured)
    assert.match(output(configured), /update eslint\.config\.js: @cairn\/eslint-plugin recommended/)
    const config = await readFile(join(root, 'eslint.config.js'), 'utf8')
    assert.match(
      config,
      /import tseslint from 'typescript-eslint'\nimport cairn from '@cairn\/eslint-plugin'\n/,
    )
    assert.match(config, /\}\s*,\s*cairn\.configs\.recommended\)\n$/)

    const before = await snapshot(root)
    assertSucceeded(await ace(root, 'configure', '@cairn/adonis'))
    assert.deepEqual(await snapshot(root), before, 'a second run changes nothing')

    await writeFileIn(root, 'app/workflows/stamp_workflow.ts', CLOCK_WORKFLOW)
    const linted = await runInApp(root, [ESLINT, 'app/workflows', '--format', 'json'])
    assert.equal(linted.exitCode, 1, output(linted))
    const [result] = JSON.parse(linted.stdout) as { messages: { ruleId: string; line: number }[] }[]
    assert.deepEqual(
      result?.messages.map((m) => [m.ruleId, m.line]),
      [['@cairn/no-nondeterminism', 9]],
    )
  })

  void test('--no-eslint leaves the config as it was', async (t) => {
    const root = await appWithEslintConfig(t, ESLINT_CONFIG)
    assertSucceeded(await ace(root, 'configure', '@cairn/adonis', '--no-eslint'))
    assert.equal(await readFile(join(root, 'eslint.config.js'), 'utf8'), ESLINT_CONFIG)
  })

  void test('a config of a shape configure does not know is left alone, with the two lines to add', async (t) => {
    const custom = "import base from './eslint.base.js'\n\nexport default base({ strict: true })\n"
    const root = await appWithEslintConfig(t, custom)
    const configured = await ace(root, 'configure', '@cairn/adonis')
    assertSucceeded(configured)
    assert.equal(await readFile(join(root, 'eslint.config.js'), 'utf8'), custom)
    assert.match(
      output(configured),
      /add to eslint\.config\.js:\n\s+import cairn from '@cairn\/eslint-plugin'\n\s+cairn\.configs\.recommended,/,
    )
  })

  void test('a bad --eslint value is refused before anything is written', async (t) => {
    const root = await appWithEslintConfig(t, ESLINT_CONFIG)
    const before = await snapshot(root)
    const refused = await ace(root, 'configure', '@cairn/adonis', '--eslint=maybe')
    assert.equal(refused.exitCode, 1)
    assert.match(output(refused), /--eslint takes no value \(or --no-eslint\), got "maybe"/)
    assert.deepEqual(await snapshot(root), before)
  })
})
