/**
 * Issue 13, point 3: a fresh AdonisJS 7 app outside the repository, @cairn/adonis installed
 * from its tarball, configured with `node ace configure`, a workflow from `make:workflow`,
 * `node ace build`, the build's production dependencies installed with `npm ci --omit=dev`;
 * then from build/, `node ace.js durable:work` drives runs and `NODE_ENV=production node
 * bin/server.js` serves a route that starts one and answers with its output.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mustRun, startProcess } from './commands.ts'
import { tarballDependencies, type PackageName, type Tarball } from './tarballs.ts'
import { createProject, npmInstall, pinned } from './user_project.ts'

const ADONIS_APP = fileURLToPath(new URL('./fixtures/adonis_app/', import.meta.url))

const IMPORTS = {
  '#config/*': './config/*.js',
  '#start/*': './start/*.js',
}

export async function checkAdonisProduction(
  root: string,
  tarballs: Map<PackageName, Tarball>,
  log: (line: string) => void,
): Promise<void> {
  await createProject(root, ADONIS_APP, {
    imports: IMPORTS,
    dependencies: {
      ...tarballDependencies(tarballs, [
        '@cairn/adonis',
        '@cairn/core',
        '@cairn/sql',
        '@cairn/dashboard',
        '@cairn/worker',
      ]),
      ...(await pinned(['@adonisjs/core', 'reflect-metadata'])),
    },
    devDependencies: await pinned([
      '@adonisjs/assembler',
      '@poppinss/ts-exec',
      'typescript',
      '@types/node',
    ]),
  })
  await npmInstall(root)

  await mustRun('node', ['ace', 'configure', '@cairn/adonis', '--store=sqlite'], { cwd: root })
  await mustRun('node', ['ace', 'make:workflow', 'greet'], { cwd: root })
  await driveFromWorkersOnly(join(root, 'config/durable.ts'))
  await mustRun('node', ['ace', 'build'], { cwd: root, timeoutMs: 600_000 })

  const build = join(root, 'build')
  await mustRun('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: build,
  })
  const port = await freePort()
  const env = {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    APP_KEY: 'packaging-test-key-0123456789abcdef',
    // .env stays out of build/ (node ace build does not copy it): production sets variables.
    DURABLE_STORE: 'sqlite',
  }
  const worker = startProcess('node', ['ace.js', 'durable:work'], { cwd: build, env })
  const server = startProcess('node', ['bin/server.js'], { cwd: build, env })
  try {
    await worker.waitFor(/Driving runs/)
    await server.waitFor(/started HTTP server|listening/i)
    const response = await fetch(`http://127.0.0.1:${port}/greetings/g-1`, { method: 'POST' })
    const body = await response.text()
    assert.equal(response.status, 200, body)
    assert.deepEqual(JSON.parse(body), { id: 'g-1' })
    const runs = await mustRun('node', ['ace.js', 'durable:runs', '--json'], { cwd: build, env })
    log(`durable:runs from the build: ${runs.stdout.trim()}`)
    const listed = JSON.parse(runs.stdout) as { runs: { status: string; leaseOwner: string }[] }
    assert.deepEqual(
      listed.runs.map((r) => r.status),
      ['completed'],
    )
    // The default instance id is host-pid-random: the worker's pid says the worker ran it.
    assert.match(listed.runs[0]?.leaseOwner ?? '', new RegExp(`-${worker.pid}-`))
  } finally {
    const [workerExit, serverExit] = await Promise.all([worker.stop(), server.stop()])
    log(`worker exited ${workerExit}, server exited ${serverExit}`)
  }
}

/**
 * The configured app drives runs in the web process too (`drive: true`, to get a single
 * process going); this app moves them to `durable:work`, as a production deployment does, so
 * the route's run completes only if the worker from the build executes it.
 */
async function driveFromWorkersOnly(configFile: string): Promise<void> {
  const config = await readFile(configFile, 'utf8')
  const edited = config.replace('drive: true,', 'drive: false,')
  assert.notEqual(edited, config, 'config/durable.ts has no `drive: true,` to turn off')
  await writeFile(configFile, edited)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}
