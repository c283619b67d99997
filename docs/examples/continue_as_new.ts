/**
 * docs/continue_as_new.md's example, runnable: an account that folds deposits into a balance
 * forever, starting a fresh run (and a fresh, short history) every three deposits.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

interface Account {
  balance: number
  closing?: boolean
}

const t = await createTestEngine()
t.engine.register('account', 1, async (ctx, account: Account) => {
  let { balance } = account
  for (let i = 0; i < 3; i++) {
    const deposit = await ctx.waitForSignal<number | 'close'>('deposit')
    if (deposit === 'close') return { closed: true, balance }
    balance = await ctx.localStep('apply', () => balance + deposit)
  }
  return ctx.continueAsNew({ balance })
})

const { runId } = await t.engine.start('account', { balance: 0 })
for (const amount of [10, 20, 30, 40, 50]) {
  // Addressed to the first run: a signal follows the chain to the latest one.
  await t.engine.signal({ runId, name: 'deposit' }, amount)
}
await t.engine.signal({ runId, name: 'deposit' }, 'close')

const outcome = await t.engine.waitForRun(runId) // follows the chain to its end
assert.equal(outcome.status, 'completed')
assert.deepEqual(outcome.status === 'completed' && outcome.output, { closed: true, balance: 150 })
assert.notEqual(outcome.runId, runId) // the run that finished is the second of the chain

const first = await t.engine.getRun(runId)
assert.equal(first?.status, 'continued')
assert.equal(first?.continuedTo, outcome.runId)
assert.equal((await t.engine.getRun(outcome.runId))?.continuedFrom, runId)
assert.equal((await t.engine.getSteps(outcome.runId)).length, 5) // its own history only
await t.close()
console.log(`balance 150 over a chain of 2 runs: ${runId} → ${outcome.runId}`)
