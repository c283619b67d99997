/**
 * `--eslint` / `--no-eslint`: whether configure adds @cairn/eslint-plugin's recommended config
 * to the app's ESLint config. Without the flag, configure asks (default yes) when it runs in a
 * terminal, and takes the default without one (CI, scripts) rather than wait on a prompt.
 */
import { InvalidArgumentError } from '@cairn/core'

/**
 * How the answer came: `asked` (the flag, or the prompt) may install the plugin; `default`
 * (no terminal, no flag) only edits a config whose plugin is already installed.
 */
export type LintChoice = 'asked' | 'default' | 'declined'

export interface LintQuestion {
  /** The flag (lintFromFlag): undefined when absent. */
  flag: boolean | undefined
  /** Whether a person can answer (stdin is a terminal). */
  interactive: boolean
  confirm(question: string): Promise<boolean>
}

export const LINT_QUESTION =
  'Lint workflow bodies for nondeterminism (add @cairn/eslint-plugin to your ESLint config)?'

export async function lintChoice(question: LintQuestion): Promise<LintChoice> {
  if (question.flag !== undefined) return question.flag ? 'asked' : 'declined'
  if (!question.interactive) return 'default'
  return (await question.confirm(LINT_QUESTION)) ? 'asked' : 'declined'
}

/** `--eslint` → true, `--no-eslint` → false (also `=true` / `=false`); undefined when absent. */
export function lintFromFlag(flag: unknown): boolean | undefined {
  if (flag === undefined || typeof flag === 'boolean') return flag
  if (flag === 'true' || flag === 'false') return flag === 'true'
  throw new InvalidArgumentError(
    `--eslint takes no value (or --no-eslint), got ${JSON.stringify(flag)}`,
    {
      details: { flag: 'eslint', value: flag },
    },
  )
}
