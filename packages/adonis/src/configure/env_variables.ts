/**
 * The app's environment: DURABLE_STORE in .env (the one variable a newcomer needs), and the
 * validation of the three variables config/durable.ts reads in start/env.ts.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Codemods } from '@adonisjs/core/ace/codemods'
import { STORE_CHOICES, type StoreChoice } from './store_choice.ts'

export const ENV_VALIDATIONS = {
  DURABLE_STORE: `Env.schema.enum([${STORE_CHOICES.map((s) => `'${s}'`).join(', ')}] as const)`,
  DURABLE_SQLITE_PATH: 'Env.schema.string.optional()',
  DURABLE_LUCID_CONNECTION: 'Env.schema.string.optional()',
}

/**
 * Writes DURABLE_STORE when the flag asks for a store, or when .env has none yet (then
 * SQLite). A value already there is kept unless the flag asks: re-running configure must not
 * switch an app's store behind its back.
 */
export async function defineEnvironment(
  codemods: Codemods,
  appRoot: string,
  requested: StoreChoice | undefined,
): Promise<void> {
  if (requested !== undefined || !(await envFileDefines(appRoot, 'DURABLE_STORE'))) {
    await codemods.defineEnvVariables({ DURABLE_STORE: requested ?? 'sqlite' })
  }
  // Adds only the variables start/env.ts does not validate yet.
  await codemods.defineEnvValidations({
    leadingComment: 'Variables for configuring @cairn/adonis (config/durable.ts)',
    variables: ENV_VALIDATIONS,
  })
}

async function envFileDefines(appRoot: string, key: string): Promise<boolean> {
  let text: string
  try {
    text = await readFile(join(appRoot, '.env'), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  return text.split(/\r?\n/).some((line) => line.startsWith(`${key}=`))
}
