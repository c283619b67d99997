/**
 * The `#workflows/*` and `#steps/*` aliases: added to package.json `imports` (how AdonisJS 7
 * apps alias their directories; core 7.5's codemods have no way to add one) and to
 * tsconfig.json `compilerOptions.paths` when the app uses paths.
 */
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { addMissingKeys } from './json_keys.ts'

export const IMPORT_ALIASES = {
  '#workflows/*': './app/workflows/*.js',
  '#steps/*': './app/steps/*.js',
}

/** Adds the aliases the app lacks; returns `file: alias` for each one added. */
export async function addImportAliases(appRoot: string): Promise<string[]> {
  const added = (
    await addMissingKeys(join(appRoot, 'package.json'), ['imports'], IMPORT_ALIASES, {
      createObject: true,
    })
  ).map((alias) => `package.json: ${alias}`)
  const tsconfig = join(appRoot, 'tsconfig.json')
  if (await exists(tsconfig)) {
    // Only an app that already maps paths needs them there (tsc reads package.json imports).
    // Paths are for the type checker alone, so they name the sources.
    const paths = Object.fromEntries(
      Object.entries(IMPORT_ALIASES).map(([alias, target]) => [
        alias,
        [target.replace(/\.js$/, '.ts')],
      ]),
    )
    const inTsconfig = await addMissingKeys(tsconfig, ['compilerOptions', 'paths'], paths, {
      createObject: false,
    })
    added.push(...inTsconfig.map((alias) => `tsconfig.json: ${alias}`))
  }
  return added
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}
