/**
 * ESLint's RuleTester on node:test, parsing TypeScript with typescript-eslint's parser: without
 * type information (`untypedTester`) and with it (`typedTester`: the fixture project, which
 * resolves @cairn/core and @cairn/adonis to their sources as this repository does).
 */
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { RuleTester, type Rule } from 'eslint'
import tseslint from 'typescript-eslint'
import cairn from '@cairn/eslint-plugin'

RuleTester.describe = describe
RuleTester.it = it
RuleTester.itOnly = it.only

export const rule: Rule.RuleModule = cairn.rules['no-nondeterminism']

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))

/** The file typed cases are linted as: its text is replaced by each case's code. */
export const TYPED_FILE = `${FIXTURES}workflow.ts`

export function untypedTester(): RuleTester {
  return new RuleTester({ languageOptions: { parser: tseslint.parser } })
}

export function typedTester(): RuleTester {
  return new RuleTester({
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        project: './tsconfig.json',
        tsconfigRootDir: FIXTURES,
        // With CI=true typescript-eslint infers a "single run" and builds its program from the
        // files on disk: each case's text (linted under one file name) would not be seen.
        disallowAutomaticSingleRunInference: true,
      },
    },
  })
}

/** `code` as the body of a registered workflow. */
export function inBody(code: string): string {
  return `engine.register('order', 1, async (ctx, input) => {\n${code}\n})`
}
