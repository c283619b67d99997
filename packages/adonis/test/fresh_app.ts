/**
 * A fresh, minimal AdonisJS 7 app on disk, as `npm init adonisjs` would leave one before any
 * package is configured: ace.js, bin/console.ts, adonisrc.ts, start/env.ts, .env, the config
 * files core needs to boot, package.json with its `#…` imports and a tsconfig.json. Its
 * node_modules is a link to this repository's, where @cairn/adonis is the workspace package.
 * Commands run as `node ace …` in a child process with stdin closed (no terminal).
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO_NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url))

const PACKAGE_JSON = {
  name: 'fresh-app',
  private: true,
  type: 'module',
  imports: {
    '#config/*': './config/*.js',
    '#start/*': './start/*.js',
  },
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2024',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    rewriteRelativeImportExtensions: true,
    // The workspace packages resolve to their sources (docs/development.md).
    customConditions: ['cairn-source'],
    types: ['node'],
  },
  exclude: ['node_modules', 'tmp'],
}

const FILES: Record<string, string> = {
  'package.json': JSON.stringify(PACKAGE_JSON, null, 2) + '\n',
  'tsconfig.json': JSON.stringify(TSCONFIG, null, 2) + '\n',
  '.env':
    'TZ=UTC\nNODE_ENV=development\nLOG_LEVEL=warn\nAPP_KEY=fresh-app-test-key-0123456789abcdef\n',
  'ace.js': `import '@poppinss/ts-exec'\nawait import('./bin/console.js')\n`,
  'bin/console.ts': `
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')
const APP_ROOT = new URL('../', import.meta.url)
const IMPORTER = (filePath: string) =>
  filePath.startsWith('./') || filePath.startsWith('../')
    ? import(new URL(filePath, APP_ROOT).href)
    : import(filePath)
new Ignitor(APP_ROOT, { importer: IMPORTER })
  .tap((app) => {
    app.booting(async () => {
      await import('#start/env')
    })
    app.listen('SIGTERM', () => app.terminate())
  })
  .ace()
  .handle(process.argv.splice(2))
  .catch((error) => {
    process.exitCode = 1
    prettyPrintError(error)
  })
`,
  'adonisrc.ts': `import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  commands: [() => import('@adonisjs/core/commands')],
  providers: [() => import('@adonisjs/core/providers/app_provider')],
})
`,
  'start/env.ts': `import { Env } from '@adonisjs/core/env'

export default await Env.create(new URL('../', import.meta.url), {
  NODE_ENV: Env.schema.enum(['development', 'production', 'test'] as const),
  APP_KEY: Env.schema.secret(),
  LOG_LEVEL: Env.schema.string(),
})
`,
  'config/app.ts': `import { defineConfig } from '@adonisjs/core/http'

export const http = defineConfig({})
`,
  'config/encryption.ts': `import env from '#start/env'
import { defineConfig, drivers } from '@adonisjs/core/encryption'

export default defineConfig({
  default: 'gcm',
  list: { gcm: drivers.aes256gcm({ keys: [env.get('APP_KEY').release()], id: 'gcm' }) },
})
`,
  'config/logger.ts': `import env from '#start/env'
import { defineConfig } from '@adonisjs/core/logger'

export default defineConfig({
  default: 'app',
  loggers: { app: { enabled: true, name: 'fresh-app', level: env.get('LOG_LEVEL') } },
})
`,
}

/** Creates the app in a temp directory; `onCleanup` gets what removes it (t.after, after). */
export async function createFreshApp(
  onCleanup: (remove: () => Promise<void>) => void,
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'cairn-fresh-app-'))
  onCleanup(() => rm(root, { recursive: true, force: true }))
  for (const [file, contents] of Object.entries(FILES)) {
    await writeFileIn(root, file, contents)
  }
  await symlink(REPO_NODE_MODULES, join(root, 'node_modules'), 'dir')
  return root
}

export async function writeFileIn(root: string, file: string, contents: string): Promise<void> {
  await mkdir(dirname(join(root, file)), { recursive: true })
  await writeFile(join(root, file), contents)
}

export interface CommandResult {
  exitCode: number | null
  stdout: string
  stderr: string
}

/** Runs `node <args…>` in the app (e.g. `ace configure @cairn/adonis`), stdin closed. */
export async function runInApp(root: string, args: string[]): Promise<CommandResult> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.NODE_TEST_CONTEXT // the child is not part of this test run
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve(code))
  })
  return { exitCode, stdout, stderr }
}

/** `node ace <args…>` in the app. */
export function ace(root: string, ...args: string[]): Promise<CommandResult> {
  return runInApp(root, ['ace.js', ...args])
}

/**
 * Every file of the app but node_modules and tmp/ (the SQLite store), with its contents, and
 * every directory: to compare before and after.
 */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  const files: Record<string, string> = {}
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name)
    const name = relative(root, path)
    if (name.startsWith('node_modules') || name.startsWith('tmp')) continue
    if (entry.isDirectory()) files[`${name}/`] = ''
    else if (entry.isFile()) files[name] = await readFile(path, 'utf8')
  }
  return files
}
