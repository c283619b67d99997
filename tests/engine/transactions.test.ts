/**
 * `ctx.transaction` on every store: a store sharing the app's connection (the Knex stores)
 * runs the step in a transaction; any other store fails it at once with
 * E_TRANSACTIONS_UNSUPPORTED — recorded, never retried, the function never called — which the
 * workflow can catch like any step failure. (The exactly-once proofs, which need the app's
 * tables, are in packages/sql/test/knex_transactions.test.ts.)
 */
import assert from 'node:assert/strict'
import { TransactionsUnsupportedError } from '@cairn/core'
import type { WorkflowContext } from '@cairn/core'
import type { Knex } from 'knex'
import { eachStore } from '../helpers/harness.ts'

eachStore('transactional steps', (test) => {
  test('runs in a transaction on a Knex store; fails clearly, unretried, on any other', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.register('tx', 1, async (ctx) =>
      ctx.transaction(
        'read',
        async (trx: Knex.Transaction) => {
          calls++
          await trx.raw('SELECT 1')
          return 'in a transaction'
        },
        { retries: 5, backoff: { type: 'fixed', delay: 1 } },
      ),
    )
    const { runId } = await engine.start('tx', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.kind, 'transaction')
    assert.equal(step?.attempts, 1)
    if (env.handle.store.runTransactionalStep !== undefined) {
      assert.deepEqual(outcome, { runId, status: 'completed', output: 'in a transaction' })
      assert.equal(calls, 1)
      return
    }
    assert.equal(calls, 0, 'the function never runs outside a transaction')
    assert.equal(outcome.status, 'failed')
    if (outcome.status !== 'failed') return
    assert.equal(outcome.error.code, 'E_TRANSACTIONS_UNSUPPORTED')
    assert.match(outcome.error.message, /does not share a database connection with your app/)
    assert.match(outcome.error.message, /use stores\.lucid or KnexStore/)
  })

  test('the workflow can catch E_TRANSACTIONS_UNSUPPORTED and go on', async (env) => {
    const engine = await env.engine()
    engine.register('fallback', 1, async (ctx) => {
      try {
        return await ctx.transaction('write', () => 'transactional')
      } catch (error) {
        if (!TransactionsUnsupportedError.is(error)) throw error
        return ctx.localStep('write-anyway', () => 'at least once')
      }
    })
    const { runId } = await engine.start('fallback', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    const supported = env.handle.store.runTransactionalStep !== undefined
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: supported ? 'transactional' : 'at least once',
    })
  })

  test('bad arguments fail the run with E_INVALID_ARGUMENT, naming what is wrong', async (env) => {
    const engine = await env.engine()
    const cases: Array<[string, (ctx: WorkflowContext) => Promise<unknown>, RegExp]> = [
      ['no-name', (ctx) => ctx.transaction('', () => 1), /step name must be a string of 1 to 1000/],
      ['no-fn', (ctx) => ctx.transaction('t', 'nope' as never), /fn must be a function/],
      [
        'timeout',
        (ctx) => ctx.transaction('t', () => 1, { timeoutMs: 5 } as never),
        /timeoutMs is a localStep option/,
      ],
      ['retries', (ctx) => ctx.transaction('t', () => 1, { retries: -1 }), /retries/],
    ]
    for (const [name, body, message] of cases) {
      engine.register(name, 1, body)
      const { runId } = await engine.start(name, null)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.equal(outcome.status, 'failed', name)
      if (outcome.status !== 'failed') continue
      assert.equal(outcome.error.code, 'E_INVALID_ARGUMENT', name)
      assert.match(outcome.error.message, message)
    }
  })
})
