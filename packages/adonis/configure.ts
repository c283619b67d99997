/**
 * The configure hook: `node ace configure @cairn/adonis` (and the configure half of
 * `node ace add @cairn/adonis`). Leaves a freshly configured app booting on a SQLite file in
 * tmp/ with nothing to edit. Every choice is a flag with a default; the one question (lint)
 * is asked only in a terminal, so no prompt can block a run without one. Every change is
 * skipped when already made, so running it twice changes nothing the second time.
 *
 * Flags: `--store=sqlite|lucid` (the store DURABLE_STORE names; default sqlite, or the
 * value .env already has), `--force` (rewrite config/durable.ts from the stub),
 * `--eslint` / `--no-eslint` (add @cairn/eslint-plugin's recommended config to the app's
 * ESLint config; asked in a terminal, default yes: src/configure/lint_offer.ts).
 */
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Configure from '@adonisjs/core/commands/configure'
import { InvalidArgumentError } from '@cairn/core'
import { stubsRoot } from './stubs/main.ts'
import { storeFromFlag, type StoreChoice } from './src/configure/store_choice.ts'
import { defineEnvironment } from './src/configure/env_variables.ts'
import { addImportAliases } from './src/configure/import_aliases.ts'
import { registerCodegenHook } from './src/configure/codegen_hook.ts'
import { lintFromFlag } from './src/configure/lint_choice.ts'
import { offerLintConfig } from './src/configure/lint_offer.ts'

export async function configure(command: Configure): Promise<void> {
  let store: StoreChoice | undefined
  let lint: boolean | undefined
  try {
    store = storeFromFlag(command.parsedFlags.store)
    lint = lintFromFlag(command.parsedFlags.eslint)
  } catch (error) {
    // Refused before anything is written: the app is left as it was.
    command.logger.error((error as Error).message)
    command.exitCode = 1
    return
  }
  const appRoot = fileURLToPath(command.app.appRoot)
  const codemods = await command.createCodemods()

  await codemods.updateRcFile((rc) =>
    rc.addProvider('@cairn/adonis/durable_provider').addCommand('@cairn/adonis/commands'),
  )
  await registerCodegenHook(codemods, appRoot)
  await defineEnvironment(codemods, appRoot, store)
  if (store === 'lucid') await warnWithoutLucid(command, appRoot)
  await codemods.makeUsingStub(stubsRoot, 'config/durable.stub', {})

  try {
    for (const added of await addImportAliases(appRoot)) {
      command.logger.action(`add ${added}`).succeeded()
    }
  } catch (error) {
    if (!InvalidArgumentError.is(error)) throw error
    command.logger.error(error.message)
    command.exitCode = 1
  }

  for (const dir of ['app/workflows', 'app/steps']) {
    await mkdir(command.app.makePath(dir), { recursive: true })
  }
  await offerLintConfig(command, codemods, appRoot, lint)
}

/**
 * stores.lucid needs Lucid's provider, registered before this one (providers shut down in
 * reverse order, so the engine drains while Lucid's connections are still open).
 */
async function warnWithoutLucid(command: Configure, appRoot: string): Promise<void> {
  const rcFile = await readFile(join(appRoot, 'adonisrc.ts'), 'utf8')
  if (rcFile.includes('@adonisjs/lucid/database_provider')) return
  command.logger.warning(
    'DURABLE_STORE=lucid needs @adonisjs/lucid: run `node ace add @adonisjs/lucid`, then move its provider before @cairn/adonis/durable_provider in adonisrc.ts',
  )
}
