/** `npm start` (the README's main job) works: every workflow finishes, no completed step re-runs. */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

void test('npm start demo survives its own SIGKILL and verifies the ledger', () => {
  const main = fileURLToPath(new URL('../../demo/main.ts', import.meta.url))
  const out = execFileSync(process.execPath, [main], { encoding: 'utf8', timeout: 120_000 })
  assert.match(out, /died: SIGKILL/)
  assert.match(out, /workflows completed:\s+60 \/ 60/)
  assert.match(out, /completed steps that ran again:\s+0/)
  assert.match(out, /no completed step was re-run\. ✔/)
})
