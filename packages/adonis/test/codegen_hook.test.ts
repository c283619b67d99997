/**
 * registerCodegenHook, the configure step that adds the workflows and steps barrel generators
 * to adonisrc.ts hooks, through the real codemods.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { cliui } from '@adonisjs/core/ace'
import { Codemods } from '@adonisjs/core/ace/codemods'
import { IgnitorFactory } from '@adonisjs/core/factories'
import { registerCodegenHook } from '../src/configure/codegen_hook.ts'
import { tempDir } from './helpers.ts'

const RC_FILE = `import { indexEntities } from '@adonisjs/core'
import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  hooks: { init: [indexEntities()] },
})
`

void test('adds indexWorkflows() and indexSteps() to the init hooks and their import, once however often it runs', async (t) => {
  const root = await tempDir(t)
  await writeFile(join(root, 'adonisrc.ts'), RC_FILE)
  await writeFile(join(root, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n')
  const app = new IgnitorFactory()
    .create(pathToFileURL(`${root}/`), { importer: (path) => import(path) })
    .createApp('console')
  const codemods = new Codemods(app, cliui({ mode: 'raw' }).logger)

  await registerCodegenHook(codemods, root)
  const once = await readFile(join(root, 'adonisrc.ts'), 'utf8')
  assert.match(once, /import \{ indexWorkflows, indexSteps \} from '@cairn\/adonis'/)
  assert.match(once, /init: \[indexEntities\(\), indexWorkflows\(\), indexSteps\(\)\]/)

  await registerCodegenHook(codemods, root)
  assert.equal(await readFile(join(root, 'adonisrc.ts'), 'utf8'), once)
})
