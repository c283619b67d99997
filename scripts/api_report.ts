/**
 * The API report: for every entry point of every published package, the names it exports
 * and their types, written by API Extractor (the tool made for this: it follows re-exports
 * and type references through the declarations the build emits) to api/<package>.<entry>.api.md.
 *
 *   npm run api:check    fails when the surface differs from the checked-in reports (CI)
 *   npm run api:update   rewrites the reports after an intended change (commit them)
 *
 * Both build first. A changed report in a pull request is the API change, reviewed as such.
 */
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const PACKAGES = [
  'core',
  'sql',
  'conformance',
  'dashboard',
  'worker',
  'bullmq',
  'queue',
  'cli',
  'eslint-plugin',
  'adonis',
]
/** Workspace plumbing, not API: inert outside the repository (packages/core/src/util/failpoints.ts). */
const NOT_API = new Set(['./package.json', './internal/failpoints'])

interface Entry {
  packageDir: string
  packageName: string
  subpath: string
  declarations: string
}

function entries(): Entry[] {
  return PACKAGES.flatMap((dir) => {
    const packageDir = join(ROOT, 'packages', dir)
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      name: string
      exports: Record<string, string | { types?: string }>
    }
    return (
      Object.entries(manifest.exports)
        .filter(([subpath]) => !NOT_API.has(subpath))
        // A data file (the wire format's JSON Schema) has no declarations: it is not code API.
        .filter(([, target]) => typeof target !== 'string' || !target.endsWith('.json'))
        .map(([subpath, target]) => ({
          packageDir,
          packageName: manifest.name,
          subpath,
          declarations: join(
            packageDir,
            typeof target === 'string' ? target : (target.types ?? ''),
          ),
        }))
    )
  })
}

/** `@cairn/core` + `./store-kit` → `core.store-kit.api.md`; the main entry → `core.api.md`. */
function reportName(entry: Entry): string {
  const base = entry.packageName.replace('@cairn/', '')
  const sub = entry.subpath === '.' ? '' : `.${entry.subpath.slice(2).replaceAll('/', '-')}`
  return `${base}${sub}.api.md`
}

function extract(entry: Entry, update: boolean, temp: string): boolean {
  const config = ExtractorConfig.prepare({
    configObjectFullPath: join(entry.packageDir, 'api-extractor.json'),
    packageJsonFullPath: join(entry.packageDir, 'package.json'),
    configObject: {
      projectFolder: entry.packageDir,
      mainEntryPointFilePath: entry.declarations,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2024',
            lib: ['ES2024'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: reportName(entry),
        reportFolder: join(ROOT, 'api'),
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
  })
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false })
  if (!result.succeeded || result.apiReportChanged) {
    const what = result.apiReportChanged ? 'changed' : 'failed'
    console.error(`api/${reportName(entry)}: ${what} (${entry.packageName} ${entry.subpath})`)
    return update && result.succeeded
  }
  return true
}

const update = process.argv.includes('--update')
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
mkdirSync(join(ROOT, 'api'), { recursive: true })
const temp = mkdtempSync(join(tmpdir(), 'cairn-api-'))
let ok = true
try {
  for (const entry of entries()) ok = extract(entry, update, temp) && ok
} finally {
  rmSync(temp, { recursive: true, force: true })
}
if (!ok && !update) {
  console.error('The public API changed. If intended: npm run api:update, and commit api/.')
}
process.exitCode = ok ? 0 : 1
