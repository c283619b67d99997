/**
 * The app's ESLint flat config, and the edit that adds @cairn/eslint-plugin's recommended
 * config to it. Only exports whose meaning is certain are edited — an array of config blocks,
 * or a call that takes config blocks as its arguments (`configApp(…)` of the AdonisJS starter
 * kits, `defineConfig(…)`, `tseslint.config(…)`) — and the edit only appends: one import, one
 * block. Anything else is left to the user, with the two lines to add.
 */
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import type { Codemods } from '@adonisjs/core/ace/codemods'
import type { ArrayLiteralExpression, CallExpression, Node, SourceFile } from 'ts-morph'

export const ESLINT_PLUGIN = '@cairn/eslint-plugin'

/** ESLint 9's names for a flat config file, in the order it looks for them. */
const CONFIG_FILES = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  'eslint.config.cts',
]

/** Calls whose arguments are config blocks: appending one adds it last, where it wins. */
const BLOCK_LIST_CALLS = new Set(['configApp', 'defineConfig', 'tseslint.config'])

export type TsMorphProject = NonNullable<Awaited<ReturnType<Codemods['getTsMorphProject']>>>

/** What a user adds by hand when configure cannot. */
export const LINT_CONFIG_LINES = [
  `import cairn from '${ESLINT_PLUGIN}'`,
  'cairn.configs.recommended, // one more block of the exported config',
]

/** The app's flat config file, or null when it has none. */
export async function findEslintConfig(appRoot: string): Promise<string | null> {
  for (const name of CONFIG_FILES) {
    const file = join(appRoot, name)
    if (await exists(file)) return file
  }
  return null
}

/**
 * Imports the plugin and appends its recommended config to the exported blocks. False, and
 * the file untouched, when the export is not a shape this knows.
 */
export async function addRecommendedConfig(
  project: TsMorphProject,
  file: string,
): Promise<boolean> {
  const source = project.addSourceFileAtPath(file)
  const exported = source.getExportAssignment((assignment) => !assignment.isExportEquals())
  const binding = freeBinding(source)
  const block = `${binding}.configs.recommended`
  const blocks = exported === undefined ? null : blockList(exported.getExpression())
  if (blocks === null) return false
  if (isCall(blocks)) blocks.addArgument(block)
  else blocks.addElement(block)
  const imports = source.getImportDeclarations()
  source.insertStatements(imports.length, importLine(imports[0]?.getText(), binding))
  await source.save()
  return true
}

/** The array or the call holding the config blocks, when the export is one. */
function blockList(expression: Node): ArrayLiteralExpression | CallExpression | null {
  if (isArray(expression)) return expression
  if (isCall(expression) && BLOCK_LIST_CALLS.has(expression.getExpression().getText())) {
    return expression
  }
  return null
}

/** The import, in the quotes and semicolons of the file's first import (single, none: Prettier's AdonisJS style). */
function importLine(firstImport: string | undefined, binding: string): string {
  const quote = firstImport?.match(/from\s*(["'])/)?.[1] ?? "'"
  const semicolon = firstImport?.trimEnd().endsWith(';') ? ';' : ''
  return `import ${binding} from ${quote}${ESLINT_PLUGIN}${quote}${semicolon}`
}

/** `cairn`, unless the file already has something of that name. */
function freeBinding(source: SourceFile): string {
  return /\bcairn\b/.test(source.getFullText()) ? 'cairnLint' : 'cairn'
}

// Kinds by name: configure loads ts-morph only through the codemods (@adonisjs/assembler).
function isCall(node: Node): node is CallExpression {
  return node.getKindName() === 'CallExpression'
}

function isArray(node: Node): node is ArrayLiteralExpression {
  return node.getKindName() === 'ArrayLiteralExpression'
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}
