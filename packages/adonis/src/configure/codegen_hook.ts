/**
 * Registers the barrel generators as assembler init hooks in adonisrc.ts
 * (`hooks: { init: [indexEntities(), indexWorkflows(), indexSteps()] }`), so `node ace serve`,
 * `build` and `codegen` write `.adonisjs/server/{workflows,steps}.ts` and the provider boots
 * from them instead of scanning the directories.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Codemods } from '@adonisjs/core/ace/codemods'

const HOOKS = ['indexWorkflows', 'indexSteps'] as const

export async function registerCodegenHook(codemods: Codemods, appRoot: string): Promise<void> {
  // A raw hook expression is appended even when present (assembler 8.5 dedupes only
  // import-style hooks), so look first: configure must be safe to run twice.
  const rcFile = await readFile(join(appRoot, 'adonisrc.ts'), 'utf8')
  const missing = HOOKS.filter((hook) => !rcFile.includes(`${hook}()`))
  if (missing.length === 0) return
  await codemods.updateRcFile((rc) => {
    rc.addNamedImport('@cairn/adonis', [...missing])
    for (const hook of missing) rc.addAssemblerHook('init', `${hook}()`, true)
    return rc
  })
}
