/** Every example under docs/examples runs to completion (exit 0): docs that cannot rot. */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const dir = fileURLToPath(new URL('../../docs/examples/', import.meta.url))

for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
  void test(`docs/examples/${file} runs`, () => {
    const out = execFileSync(process.execPath, [dir + file], { encoding: 'utf8', timeout: 60_000 })
    assert.ok(out.length > 0, 'the example prints what it did')
  })
}
