/**
 * Build-time discovery against the real @adonisjs/assembler index generator: the hooks write
 * the barrels, the provider boots from them, and falls back to scanning when they are absent.
 * Duplicate step names fail boot on both paths.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { IndexGenerator } from '@adonisjs/assembler/index_generator'
import { InvalidArgumentError } from '@cairn/core'
import { defineConfig, indexSteps, indexWorkflows, stores } from '@cairn/adonis'
import { createApp } from './helpers.ts'

const FIXTURE = fileURLToPath(new URL('./fixtures/barrel_app/', import.meta.url))
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url))

/** A copy of the fixture app in a temp dir; its imports of @cairn/* resolve through a link. */
async function appCopy(t: TestContext): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'cairn-barrel-app-'))
  t.after(() => rm(root, { recursive: true, force: true }))
  await cp(FIXTURE, root, { recursive: true })
  await symlink(NODE_MODULES, join(root, 'node_modules'), 'dir')
  return root
}

/** What `node ace codegen` does with `hooks: { init: [indexWorkflows(), indexSteps()] }`. */
async function codegen(root: string): Promise<void> {
  // The generator only logs `info` lines; a stub keeps @poppinss/cliui out of the test's imports.
  const logger = { info() {} } as unknown as ConstructorParameters<typeof IndexGenerator>[1]
  const generator = new IndexGenerator(root, logger)
  for (const hook of [indexWorkflows(), indexSteps()]) hook.run(null, null, generator)
  await generator.generate()
}

async function boot(t: TestContext, root: string) {
  const app = await createApp(
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(root, 'durable.sqlite') }) },
      drive: true,
    }),
    { root: pathToFileURL(`${root}/`) },
  )
  t.after(() => app.terminate())
  await app.boot()
  return app
}

const DUPLICATE_PING = `import { defineStep } from '@cairn/adonis'
export default defineStep('ping', async (input: string) => input)
`

function namesBothFiles(error: Error): boolean {
  assert.ok(InvalidArgumentError.is(error))
  assert.match(error.message, /Step "ping" is declared twice/)
  assert.match(error.message, /app\/steps\/ping_step\.ts/)
  assert.match(error.message, /app\/steps\/zz_ping_again\.ts/)
  return true
}

void test('the init hooks write barrels listing every module with its file', async (t) => {
  const root = await appCopy(t)
  await codegen(root)
  const steps = await readFile(join(root, '.adonisjs/server/steps.ts'), 'utf8')
  assert.match(steps, /DO NOT EDIT/)
  assert.match(
    steps,
    /export const steps = \[\n {2}\{ file: "app\/steps\/ping_step\.ts", load: \(\) => import\("\.\.\/\.\.\/app\/steps\/ping_step\.ts"\) \},\n\]/,
  )
  const workflows = await readFile(join(root, '.adonisjs/server/workflows.ts'), 'utf8')
  assert.match(workflows, /\{ file: "app\/workflows\/ping_workflow\.ts", load: \(\) => import\(/)
})

void test('boot loads what the barrel lists, not what the directory holds now', async (t) => {
  const root = await appCopy(t)
  await codegen(root)
  // Added after codegen: the scan would find a duplicate, the barrel does not list it.
  await writeFile(join(root, 'app/steps/zz_ping_again.ts'), DUPLICATE_PING)
  const app = await boot(t, root)
  const engine = await app.container.make('durable.engine')
  await app.start(() => {})
  const { runId } = await engine.start('ping', 'from the barrel')
  const outcome = await engine.waitForRun(runId, { timeoutMs: 30_000 })
  assert.deepEqual(outcome, { runId, status: 'completed', output: 'pong from the barrel' })
})

void test('without barrels boot scans the directories, and a duplicate fails it naming both files', async (t) => {
  const root = await appCopy(t)
  await writeFile(join(root, 'app/steps/zz_ping_again.ts'), DUPLICATE_PING)
  await assert.rejects(boot(t, root), namesBothFiles)
})

void test('a duplicate listed in the barrel fails boot naming both files', async (t) => {
  const root = await appCopy(t)
  await writeFile(join(root, 'app/steps/zz_ping_again.ts'), DUPLICATE_PING)
  await codegen(root)
  await assert.rejects(boot(t, root), namesBothFiles)
})

void test('a barrel that does not list { file, load } entries fails boot asking to regenerate it', async (t) => {
  const root = await appCopy(t)
  await codegen(root)
  await writeFile(join(root, '.adonisjs/server/steps.ts'), 'export const steps = { Ping: 1 }\n')
  await assert.rejects(
    boot(t, root),
    /does not export steps as a list of \{ file, load \}: regenerate it/,
  )
})
