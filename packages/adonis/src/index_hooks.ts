/**
 * Build-time discovery: assembler init hooks that write barrels of the app's workflows and
 * steps, so the provider imports the listed modules instead of scanning directories at boot.
 *
 *   // adonisrc.ts
 *   hooks: { init: [indexEntities(), indexWorkflows(), indexSteps()] }
 *
 * They run where the assembler runs (`node ace serve`, `build`, `test`, `codegen`) and keep
 * the barrels current as files come and go under `serve`. Starting bin/server.ts directly does
 * not run them: generate with `node ace codegen` first, or commit `.adonisjs/server/*`.
 * Without a barrel the provider falls back to scanning the directory.
 */
import { extname, posix } from 'node:path'

/** Where the provider looks for each barrel, relative to the app root (without extension). */
export const WORKFLOWS_BARREL = '.adonisjs/server/workflows'
export const STEPS_BARREL = '.adonisjs/server/steps'

export interface IndexHookOptions {
  /** The directory to index, relative to the app root; keep it equal to the config's path. */
  source?: string
}

/** The part of @adonisjs/assembler's IndexGenerator these hooks use (the package is optional). */
interface IndexGeneratorLike {
  add(name: string, config: BarrelConfig): unknown
}

interface BarrelConfig {
  source: string
  output: string
  comment: string
  as: (vfs: FileListLike, buffer: BufferLike, config: unknown, helpers: ImportPaths) => void
}

interface FileListLike {
  asList(): Record<string, string>
}
interface BufferLike {
  write(text: string): unknown
}
interface ImportPaths {
  toImportPath(filePath: string): string
}

/** An init hook: indexes `app/workflows` (recursively) into `.adonisjs/server/workflows.ts`. */
export function indexWorkflows(options: IndexHookOptions = {}) {
  return barrelHook('workflows', options.source ?? 'app/workflows', WORKFLOWS_BARREL)
}

/** An init hook: indexes `app/steps` (recursively) into `.adonisjs/server/steps.ts`. */
export function indexSteps(options: IndexHookOptions = {}) {
  return barrelHook('steps', options.source ?? 'app/steps', STEPS_BARREL)
}

function barrelHook(exportName: string, source: string, output: string) {
  return {
    run(_parent: unknown, _hooks: unknown, indexGenerator: IndexGeneratorLike): void {
      indexGenerator.add(`cairn-${exportName}`, {
        source,
        output: `${output}.ts`,
        comment: `The modules of ${source}, for @cairn/adonis (generated).\nDO NOT EDIT manually`,
        as: (files, buffer, _config, paths) =>
          writeBarrel(exportName, source, files, buffer, paths),
      })
    },
  }
}

/**
 * A list, not the assembler's nested object: the provider needs each module's file to name
 * both files of a duplicate, and loads every module anyway.
 */
function writeBarrel(
  exportName: string,
  source: string,
  files: FileListLike,
  buffer: BufferLike,
  paths: ImportPaths,
): void {
  const entries = Object.entries(files.asList())
    .map(([key, absolute]) => ({
      file: posix.join(source, `${key}${extname(absolute)}`),
      absolute,
    }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
  buffer.write(`export const ${exportName} = [`)
  for (const { file, absolute } of entries) {
    const from = JSON.stringify(paths.toImportPath(absolute))
    buffer.write(`  { file: ${JSON.stringify(file)}, load: () => import(${from}) },`)
  }
  buffer.write(']')
}
