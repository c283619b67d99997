/**
 * The modules of an app directory (`app/workflows`, `app/steps`), as a list of files and how
 * to load each: from the barrel the assembler hook generated (build-time discovery), or, when
 * there is none, by scanning the directory (recursively) at boot.
 */
import { access, readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { InvalidArgumentError } from '@cairn/core'

export interface AppModule {
  /** Path of the module relative to the app root (what errors name). */
  file: string
  load(): Promise<unknown>
}

export type Importer = (url: string) => Promise<unknown>

const MODULE = /\.(ts|js|mts|mjs)$/
const DECLARATION = /\.d\.(ts|mts)$/
const defaultImporter: Importer = (url) => import(url)

/** The barrel's modules when `barrel` (relative to the app root) exists, else a scan of `source`. */
export async function appModules(
  appRoot: string,
  source: string,
  barrel: string,
  exportName: string,
): Promise<AppModule[]> {
  return (
    (await barrelModules(join(appRoot, barrel), exportName)) ??
    scanModules(join(appRoot, source), appRoot)
  )
}

/** Every module under `dir` (absolute), sorted. A missing directory has none. */
export async function scanModules(
  dir: string,
  appRoot: string,
  importer: Importer = defaultImporter,
): Promise<AppModule[]> {
  let entries
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return entries
    .filter((e) => e.isFile() && MODULE.test(e.name) && !DECLARATION.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort()
    .map((path) => ({
      file: relative(appRoot, path),
      load: () => importer(pathToFileURL(path).href),
    }))
}

/**
 * The modules a generated barrel lists (its `exportName` export), or null when the barrel
 * does not exist: `<basePath>.ts` (the app runs from source) or `<basePath>.js` (built).
 */
export async function barrelModules(
  basePath: string,
  exportName: string,
  importer: Importer = defaultImporter,
): Promise<AppModule[] | null> {
  for (const path of [`${basePath}.ts`, `${basePath}.js`]) {
    if (!(await exists(path))) continue
    const mod = (await importer(pathToFileURL(path).href)) as Record<string, unknown>
    return checkBarrel(mod[exportName], path, exportName)
  }
  return null
}

function checkBarrel(list: unknown, path: string, exportName: string): AppModule[] {
  const valid =
    Array.isArray(list) &&
    list.every(
      (e: unknown) =>
        typeof (e as AppModule | null)?.file === 'string' &&
        typeof (e as AppModule | null)?.load === 'function',
    )
  if (!valid)
    throw new InvalidArgumentError(
      `${path} does not export ${exportName} as a list of { file, load }: regenerate it (node ace codegen)`,
      { details: { barrel: path } },
    )
  return list as AppModule[]
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path)
    return true
  } catch {
    return false
  }
}
