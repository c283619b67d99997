/**
 * Registers the workflows barrel generator as an assembler init hook in adonisrc.ts
 * (`hooks: { init: [indexEntities(), indexWorkflows()] }`). Not called by configure yet: the
 * hook is being added to the package separately; once `indexWorkflows` is exported from
 * '@cairn/adonis', configure calls this after registering the provider.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Codemods } from '@adonisjs/core/ace/codemods'

const HOOK_CALL = 'indexWorkflows()'

export async function registerCodegenHook(codemods: Codemods, appRoot: string): Promise<void> {
  // A raw hook expression is appended even when present (assembler 8.5 dedupes only
  // import-style hooks), so look first: configure must be safe to run twice.
  const rcFile = await readFile(join(appRoot, 'adonisrc.ts'), 'utf8')
  if (rcFile.includes(HOOK_CALL)) return
  await codemods.updateRcFile((rc) =>
    rc
      .addNamedImport('@cairn/adonis', ['indexWorkflows'])
      .addAssemblerHook('init', HOOK_CALL, true),
  )
}
