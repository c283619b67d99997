/**
 * The edit configure makes to an app's ESLint flat config (src/configure/eslint_config.ts):
 * one import and one block appended, to the shapes whose meaning is certain; any other file
 * left byte for byte as it was.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { Project } from 'ts-morph'
import { addRecommendedConfig, findEslintConfig } from '../src/configure/eslint_config.ts'
import { tempDir } from './helpers.ts'

async function edit(t: TestContext, name: string, contents: string) {
  const file = join(await tempDir(t), name)
  await writeFile(file, contents)
  const edited = await addRecommendedConfig(new Project(), file)
  return { edited, text: await readFile(file, 'utf8') }
}

void test("the AdonisJS starter kit's configApp(): the block becomes its argument", async (t) => {
  const { edited, text } = await edit(
    t,
    'eslint.config.js',
    "import { configApp } from '@adonisjs/eslint-config'\n\nexport default configApp()\n",
  )
  assert.equal(edited, true)
  assert.equal(
    text,
    "import { configApp } from '@adonisjs/eslint-config'\nimport cairn from '@cairn/eslint-plugin'\n\nexport default configApp(cairn.configs.recommended)\n",
  )
})

void test('an array of blocks, defineConfig(…) and tseslint.config(…): the block goes last', async (t) => {
  const array = await edit(t, 'eslint.config.mjs', 'export default [{ rules: {} }]\n')
  assert.match(array.text, /^import cairn from '@cairn\/eslint-plugin'\n/)
  assert.match(array.text, /export default \[\{ rules: \{\} \}, cairn\.configs\.recommended\]/)

  const defineConfig = await edit(
    t,
    'eslint.config.js',
    [
      "import { defineConfig } from 'eslint/config'",
      "import js from '@eslint/js'",
      '',
      'export default defineConfig(',
      '  js.configs.recommended,',
      '  { rules: { eqeqeq: "error" } },',
      ')',
      '',
    ].join('\n'),
  )
  assert.equal(defineConfig.edited, true)
  assert.match(
    defineConfig.text,
    /import js from '@eslint\/js'\nimport cairn from '@cairn\/eslint-plugin'\n/,
  )
  assert.match(
    defineConfig.text,
    /\{ rules: \{ eqeqeq: "error" \} \},\s*cairn\.configs\.recommended\s*\)/,
  )

  const typescriptEslint = await edit(
    t,
    'eslint.config.ts',
    "import tseslint from 'typescript-eslint'\nexport default tseslint.config(tseslint.configs.recommended)\n",
  )
  assert.match(
    typescriptEslint.text,
    /tseslint\.config\(tseslint\.configs\.recommended, cairn\.configs\.recommended\)/,
  )
})

void test("the import follows the file's quotes and semicolons", async (t) => {
  const { text } = await edit(
    t,
    'eslint.config.js',
    'import { defineConfig } from "eslint/config";\n\nexport default defineConfig([]);\n',
  )
  assert.equal(
    text,
    'import { defineConfig } from "eslint/config";\nimport cairn from "@cairn/eslint-plugin";\n\nexport default defineConfig([], cairn.configs.recommended);\n',
  )
})

void test('a file that already uses the name cairn gets the plugin as cairnLint', async (t) => {
  const { text } = await edit(t, 'eslint.config.js', 'const cairn = {}\nexport default [cairn]\n')
  assert.match(text, /import cairnLint from '@cairn\/eslint-plugin'/)
  assert.match(text, /export default \[cairn, cairnLint\.configs\.recommended\]/)
})

void test('any other shape is left untouched', async (t) => {
  for (const contents of [
    "import custom from './eslint.base.js'\nexport default custom({ strict: true })\n",
    'const config = [{ rules: {} }]\nexport default config\n',
    'module.exports = [{ rules: {} }]\n',
    'export const config = []\n',
  ]) {
    const { edited, text } = await edit(t, 'eslint.config.js', contents)
    assert.equal(edited, false, contents)
    assert.equal(text, contents)
  }
})

void test("finds the app's flat config under any of ESLint's names, or none", async (t) => {
  const root = await tempDir(t)
  assert.equal(await findEslintConfig(root), null)
  await writeFile(join(root, 'eslint.config.mts'), 'export default []\n')
  assert.equal(await findEslintConfig(root), join(root, 'eslint.config.mts'))
  await writeFile(join(root, 'eslint.config.js'), 'export default []\n')
  assert.equal(await findEslintConfig(root), join(root, 'eslint.config.js'))
})
