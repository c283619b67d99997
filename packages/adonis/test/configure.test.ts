/**
 * `node ace configure @cairn/adonis` on a fresh AdonisJS 7 app (fresh_app.ts), run the way a
 * user runs it: `node ace …` in a child process, with no terminal. Then the app it leaves is
 * booted, and a workflow made by `node ace make:workflow` runs to completion on the default
 * store, a SQLite file in tmp/.
 */
import assert from 'node:assert/strict'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
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

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url))

function output(result: CommandResult): string {
  return stripVTControlCharacters(result.stdout + result.stderr)
}

function assertSucceeded(result: CommandResult): void {
  assert.equal(result.exitCode, 0, output(result))
}

/** Boots the app as bin/server.ts does (web: config/durable.ts drives) and runs GreetWorkflow. */
const RUN_GREET = `
import { Ignitor } from '@adonisjs/core'

const APP_ROOT = new URL('../', import.meta.url)
const app = new Ignitor(APP_ROOT, {
  importer: (path) =>
    path.startsWith('./') || path.startsWith('../')
      ? import(new URL(path, APP_ROOT).href)
      : import(path),
}).createApp('web')
app.booting(async () => {
  await import('#start/env')
})
await app.init()
await app.boot()
await app.start(() => {})
const { default: GreetWorkflow } = await import('#workflows/greet_workflow')
const output = await GreetWorkflow.start({ id: 'greet-1' }, { timeoutMs: 60_000 })
await app.terminate()
console.log(JSON.stringify({ output }))
`

void describe('node ace configure @cairn/adonis on a fresh app', () => {
  let root: string
  let firstRun: CommandResult

  let remove: () => Promise<void> = async () => {}
  after(() => remove())

  before(async () => {
    root = await createFreshApp((removeApp) => (remove = removeApp))
    firstRun = await ace(root, 'configure', '@cairn/adonis')
  })

  const read = (file: string) => readFile(join(root, file), 'utf8')

  void test('registers the provider and the commands, the env variables, the config and the aliases', async () => {
    assertSucceeded(firstRun)
    const rcFile = await read('adonisrc.ts')
    assert.match(rcFile, /providers: \[.*import\('@cairn\/adonis\/durable_provider'\)/s)
    assert.match(rcFile, /commands: \[.*import\('@cairn\/adonis\/commands'\)/s)
    assert.match(rcFile, /import \{ indexWorkflows, indexSteps \} from '@cairn\/adonis'/)
    assert.match(rcFile, /init: \[indexWorkflows\(\), indexSteps\(\)\]/)

    assert.match(await read('.env'), /^DURABLE_STORE=sqlite$/m)
    const env = await read('start/env.ts')
    assert.match(env, /DURABLE_STORE: Env\.schema\.enum\(\['sqlite', 'lucid'\] as const\)/)
    assert.match(env, /DURABLE_SQLITE_PATH: Env\.schema\.string\.optional\(\)/)
    assert.match(env, /DURABLE_LUCID_CONNECTION: Env\.schema\.string\.optional\(\)/)

    const config = await read('config/durable.ts')
    assert.match(config, /store: env\.get\('DURABLE_STORE'\)/)
    assert.match(config, /sqlite: stores\.sqlite\(/)
    assert.match(config, /lucid: stores\.lucid\(/)

    const { imports } = JSON.parse(await read('package.json')) as {
      imports: Record<string, string>
    }
    assert.deepEqual(imports, {
      '#config/*': './config/*.js',
      '#start/*': './start/*.js',
      '#workflows/*': './app/workflows/*.js',
      '#steps/*': './app/steps/*.js',
    })
    assert.ok((await stat(join(root, 'app/workflows'))).isDirectory())
    assert.ok((await stat(join(root, 'app/steps'))).isDirectory())
  })

  void test('a second run changes nothing', async () => {
    const before = await snapshot(root)
    assertSucceeded(await ace(root, 'configure', '@cairn/adonis'))
    assert.deepEqual(await snapshot(root), before)
  })

  void test('make:workflow writes a workflow that the booted app runs to completion on SQLite in tmp/', async () => {
    const made = await ace(root, 'make:workflow', 'Greet')
    assertSucceeded(made)
    assert.match(output(made), /create app\/workflows\/greet_workflow\.ts/)
    const workflow = await read('app/workflows/greet_workflow.ts')
    assert.match(
      workflow,
      /export default class GreetWorkflow extends BaseWorkflow<GreetInput, GreetOutput>/,
    )
    assert.match(workflow, /static workflow = \{ name: 'greet', version: 1 \}/)

    await writeFileIn(root, 'bin/run_greet.ts', RUN_GREET)
    const ran = await runInApp(root, ['--import=@poppinss/ts-exec', 'bin/run_greet.ts'])
    assertSucceeded(ran)
    assert.deepEqual(JSON.parse(ran.stdout.trim().split('\n').at(-1)!), {
      output: { id: 'greet-1' },
    })
    assert.ok((await stat(join(root, 'tmp/durable.sqlite'))).isFile())
  })

  void test('node ace codegen writes the workflows barrel, and the app boots from it', async () => {
    assertSucceeded(await ace(root, 'codegen'))
    const barrel = await read('.adonisjs/server/workflows.ts')
    assert.match(barrel, /greet_workflow/)
    // The barrel is what the provider loads: one that names no workflow leaves none registered.
    await writeFile(join(root, '.adonisjs/server/workflows.ts'), 'export const workflows = []\n')
    await writeFileIn(root, 'bin/run_greet.ts', RUN_GREET)
    const ran = await runInApp(root, ['--import=@poppinss/ts-exec', 'bin/run_greet.ts'])
    assert.notEqual(ran.exitCode, 0)
    assert.match(output(ran), /greet/)
    await writeFile(join(root, '.adonisjs/server/workflows.ts'), barrel)
    assertSucceeded(await runInApp(root, ['--import=@poppinss/ts-exec', 'bin/run_greet.ts']))
  })

  void test('make:workflow refuses to overwrite a file, and overwrites it with --force', async () => {
    const file = join(root, 'app/workflows/greet_workflow.ts')
    const generated = await readFile(file, 'utf8')
    await writeFile(file, '// edited by hand\n')

    const refused = await ace(root, 'make:workflow', 'Greet')
    assert.equal(refused.exitCode, 1)
    assert.match(output(refused), /greet_workflow\.ts already exists: use --force to overwrite it/)
    assert.equal(await readFile(file, 'utf8'), '// edited by hand\n')

    assertSucceeded(await ace(root, 'make:workflow', 'Greet', '--force'))
    assert.equal(await readFile(file, 'utf8'), generated)
  })

  void test('make:workflow and make:step name classes and files from any spelling, in subdirectories', async () => {
    assertSucceeded(await ace(root, 'make:workflow', 'billing/order-fulfillment-workflow'))
    const workflow = await read('app/workflows/billing/order_fulfillment_workflow.ts')
    assert.match(workflow, /class OrderFulfillmentWorkflow extends BaseWorkflow</)
    assert.match(workflow, /name: 'order_fulfillment', version: 1/)

    const made = await ace(root, 'make:step', 'billing/ChargeCard')
    assertSucceeded(made)
    const step = await read('app/steps/billing/charge_card_step.ts')
    assert.match(step, /import \{ BaseStep, type StepContext \} from '@cairn\/adonis'/)
    assert.match(
      step,
      /export default class ChargeCardStep extends BaseStep<ChargeCardInput, ChargeCardOutput>/,
    )
    assert.match(step, /static step = \{ name: 'charge_card' \}/)
    assert.match(
      step,
      /async run\(input: ChargeCardInput, _stepCtx: StepContext\): Promise<ChargeCardOutput>/,
    )

    assert.equal((await ace(root, 'make:step', 'ChargeCardStep')).exitCode, 0)
    assert.equal((await ace(root, 'make:step', 'charge_card')).exitCode, 1) // same file
  })

  void test('the configured app and its generated workflows typecheck', async () => {
    const checked = await runInApp(root, [TSC, '-p', 'tsconfig.json'])
    assertSucceeded(checked)
  })
})

void describe('node ace configure @cairn/adonis --store', () => {
  void test('--store=lucid sets DURABLE_STORE, warns that Lucid is missing; a run without it keeps lucid', async (t) => {
    const root = await createFreshApp((remove) => t.after(remove))
    const configured = await ace(root, 'configure', '@cairn/adonis', '--store=lucid')
    assertSucceeded(configured)
    assert.match(output(configured), /DURABLE_STORE=lucid needs @adonisjs\/lucid/)
    assert.match(await readFile(join(root, '.env'), 'utf8'), /^DURABLE_STORE=lucid$/m)

    assertSucceeded(await ace(root, 'configure', '@cairn/adonis'))
    const env = await readFile(join(root, '.env'), 'utf8')
    assert.deepEqual(env.match(/^DURABLE_STORE=.*$/gm), ['DURABLE_STORE=lucid'])
  })

  void test('an unknown store is refused before anything is written', async (t) => {
    const root = await createFreshApp((remove) => t.after(remove))
    const before = await snapshot(root)
    const refused = await ace(root, 'configure', '@cairn/adonis', '--store=redis')
    assert.equal(refused.exitCode, 1)
    assert.match(output(refused), /--store must be one of sqlite, lucid, got "redis"/)
    assert.deepEqual(await snapshot(root), before)
  })
})
