/**
 * Configure's offer to lint workflow bodies: @cairn/eslint-plugin's recommended config in the
 * app's ESLint config (docs/lint.md). Declined with `--no-eslint`. Configure edits the config
 * only when it can do so safely (eslint_config.ts) and the plugin is installed — installing it
 * first when the user said yes, never on the unattended default — and otherwise prints the two
 * lines to add. A config that already names the plugin is left as it is.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, join } from 'node:path'
import type Configure from '@adonisjs/core/commands/configure'
import type { Codemods } from '@adonisjs/core/ace/codemods'
import { lintChoice, type LintChoice } from './lint_choice.ts'
import {
  addRecommendedConfig,
  ESLINT_PLUGIN,
  findEslintConfig,
  LINT_CONFIG_LINES,
} from './eslint_config.ts'

export async function offerLintConfig(
  command: Configure,
  codemods: Codemods,
  appRoot: string,
  flag: boolean | undefined,
): Promise<void> {
  const choice = await lintChoice({
    flag,
    interactive: process.stdin.isTTY === true,
    confirm: (question) => command.prompt.confirm(question, { default: true }),
  })
  if (choice === 'declined') return
  const file = await findEslintConfig(appRoot)
  if (file === null) {
    return showLines(
      command,
      'No ESLint flat config (eslint.config.*) found. To lint workflow bodies, add to it:',
    )
  }
  if ((await readFile(file, 'utf8')).includes(ESLINT_PLUGIN)) return
  const edited =
    (await pluginReady(codemods, appRoot, choice)) && (await editConfig(codemods, file))
  if (edited) {
    command.logger.action(`update ${basename(file)}: ${ESLINT_PLUGIN} recommended`).succeeded()
  } else {
    showLines(command, `To lint workflow bodies for nondeterminism, add to ${basename(file)}:`)
  }
}

async function editConfig(codemods: Codemods, file: string): Promise<boolean> {
  const project = await codemods.getTsMorphProject()
  return project !== undefined && (await addRecommendedConfig(project, file))
}

/** Installed already, or installed now when the user asked for it. */
async function pluginReady(codemods: Codemods, appRoot: string, choice: LintChoice) {
  if (isInstalled(appRoot)) return true
  const plugin = [{ name: ESLINT_PLUGIN, isDevDependency: true }]
  if (choice === 'asked') return codemods.installPackages(plugin)
  await codemods.listPackagesToInstall(plugin)
  return false
}

function isInstalled(appRoot: string): boolean {
  try {
    createRequire(join(appRoot, 'package.json')).resolve(`${ESLINT_PLUGIN}/package.json`)
    return true
  } catch {
    return false
  }
}

function showLines(command: Configure, lead: string): void {
  command.logger.info([lead, ...LINT_CONFIG_LINES.map((line) => `  ${line}`)].join('\n'))
}
