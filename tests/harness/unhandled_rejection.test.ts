/**
 * The suite's guard against crashes hidden in promises: an unhandled rejection fails the test
 * it happens in (node:test attributes it to the running test). Checked here on a throwaway
 * test file, so a change of runner flags (say --unhandled-rejections=warn) cannot turn it off
 * without this failing.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

void test('an unhandled rejection fails the test it happens in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-unhandled-'))
  try {
    const file = join(dir, 'fixture.test.mjs')
    writeFileSync(
      file,
      `import { test } from 'node:test'
test('rejects in the background', async () => {
  Promise.reject(new Error('left unhandled'))
  await new Promise((resolve) => setTimeout(resolve, 50))
})
`,
    )
    // Without the parent runner's context variable, the child reports as a run of its own.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env
    const run = spawnSync(process.execPath, ['--test', file], { encoding: 'utf8', env })
    assert.notEqual(run.status, 0, 'the run failed')
    assert.match(run.stdout, /✖ rejects in the background/)
    assert.match(run.stdout, /left unhandled/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
