/**
 * docs/adonis.md shows the config/durable.ts that `node ace configure` writes, without its
 * comments. This keeps the two the same code (the configure test compiles the stub's output).
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'

/** The code lines: no stub header, no comments, no blank lines. */
function codeLines(source: string): string[] {
  return source
    .replace(/^\{\{\{[\s\S]*?\}\}\}\n/, '')
    .replace(/\/\*\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
}

void test('the config/durable.ts in docs/adonis.md is the code of the stub', async () => {
  const stub = await readFile(new URL('../stubs/config/durable.stub', import.meta.url), 'utf8')
  const docs = await readFile(new URL('../../../docs/adonis.md', import.meta.url), 'utf8')
  const section = docs.slice(docs.indexOf('### config/durable.ts'))
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  assert.ok(example !== undefined, 'docs/adonis.md has a config/durable.ts example')
  assert.deepEqual(codeLines(example), codeLines(stub))
})
