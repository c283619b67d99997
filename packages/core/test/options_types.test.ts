/**
 * Compile-time half of "every option honoured or refused": each options object of the public
 * API is a closed type, so an object literal with a key it does not take is a tsc error. Each
 * `@ts-expect-error` below fails `npm run typecheck` if that error ever disappears (an index
 * signature, a loosened type). The bodies are never run; the runtime half is option_keys.test.ts.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCodec } from '../src/codec/index.ts'
import { Engine } from '../src/engine/engine.ts'
import { defineStep } from '../src/execution/define_step.ts'
import type { WorkflowContext } from '../src/execution/types.ts'
import { MemoryStore } from '../src/store/memory/memory_store.ts'

function engineCalls(engine: Engine): void {
  const body = async () => null
  // @ts-expect-error -- @adonis-agora/durable's singleton admission is not in Cairn
  engine.register('order', 1, body, { singleton: { limit: 1 } })
  // @ts-expect-error -- an event batch needs its window
  engine.register('order', 1, body, { onEvent: ['a'], eventBatch: { mode: 'debounce' } })
  // @ts-expect-error -- an event trigger names its event
  engine.register('order', 1, body, { onEvent: [{ match: { a: 1 } }] })
  // @ts-expect-error -- Cairn's is executionTimeoutMs
  engine.register('order', 1, body, { executionTimeout: '30s' })
  // @ts-expect-error -- nested: a workflow's retry policy
  engine.register('order', 1, body, { retry: { attempts: 3 } })
  // @ts-expect-error -- nested: its backoff
  engine.register('order', 1, body, { retry: { backoff: { delayMs: 5 } } })
  // @ts-expect-error -- a priority is a number
  void engine.start('order', null, { priority: 'high' })
  // @ts-expect-error -- the run id goes in the options
  void engine.start('order', null, 'order-1')
  // @ts-expect-error -- waitForRun always waits for the end
  void engine.waitForRun('r', { terminal: true })
  // @ts-expect-error -- cancel takes reason and compensate
  void engine.cancel('r', { force: true })
  // @ts-expect-error -- signal takes signalId
  void engine.signal({ runId: 'r', name: 'go' }, null, { dedupeId: 'd' })
  // @ts-expect-error -- the signal of signalWithStart is named, not a token
  void engine.signalWithStart('order', null, { runId: 'r' }, { name: 'go', token: 'go' })
  // @ts-expect-error -- publishEvent takes eventId
  void engine.publishEvent('paid', null, { buffer: true })
  // @ts-expect-error -- continue takes label and note
  void engine.continue('r', { labels: [] })
  // @ts-expect-error -- getEvent takes timeoutMs
  void engine.getEvent('r', 'stage', { wait: 5 })
  // @ts-expect-error -- update takes updateId and timeoutMs
  void engine.update('r', 'add', 1, { id: 'u' })
  // @ts-expect-error -- retryWithInput takes runId
  void engine.retryWithInput('r', null, { version: 2 })
  // @ts-expect-error -- fork takes fromSeq, input, runId
  void engine.fork('r', { fromSeq: 0, seq: 0 })
  // @ts-expect-error -- the filter is `tag`
  void engine.listRuns({ tags: ['x'] })
  // @ts-expect-error -- facets are not paged
  void engine.facetRuns({ limit: 5 })
  // @ts-expect-error -- a page is fromSeq and limit
  void engine.getStepsPage('r', { fromSeq: 0, limit: 5, from: 1 })
  // @ts-expect-error -- registerStep's options are a step definition's
  engine.registerStep('charge', body, { pickupTimeout: 1_000 })
  // @ts-expect-error -- a misspelt engine option
  void new Engine({ store: new MemoryStore(), concurency: 5 })
  // @ts-expect-error -- a misspelt transform would leave payloads in clear text
  createCodec({ transfrom: { encode: String, decode: String } })
}

const handler = async (input: { cents: number }) => input.cents

function stepDefinitions(): void {
  // @ts-expect-error -- step schemas are not in Cairn yet
  defineStep('charge', handler, { input: {} })
  // @ts-expect-error -- compensate is given on the call
  defineStep('charge', handler, { compensate: () => null })
  // @ts-expect-error -- the seed's flat backoff
  defineStep('charge', handler, { backoffMs: 100 })
}

async function ctxCalls(ctx: WorkflowContext): Promise<void> {
  const charge = defineStep('charge', handler)
  // A queue with its priority and fairness key is a call option (type-checks).
  await ctx.step(charge, { cents: 1 }, { queue: 'payments', priority: 1, fairnessKey: 'tenant' })
  // @ts-expect-error -- a priority is a number
  await ctx.step('charge', { cents: 1 }, { queue: 'payments', priority: 'high' })
  // @ts-expect-error -- the seed's flat backoff
  await ctx.localStep('charge', () => 1, { backoffMs: 100 })
  // @ts-expect-error -- nested backoff keys
  await ctx.localStep('charge', () => 1, { backoff: { delayMs: 100 } })
  // @ts-expect-error -- a transaction takes retries and backoff
  await ctx.transaction('t', () => 1, { timeoutMs: 5 })
  // @ts-expect-error -- timeoutMs, not timeout
  await ctx.waitForSignal('go', { timeout: 5 })
  // @ts-expect-error -- match, not matches
  await ctx.waitForEvent('paid', { matches: {} })
  // @ts-expect-error -- validate, not validator
  await ctx.onUpdate('add', { validator: () => true })
  // @ts-expect-error -- a child's priority is a number
  await ctx.child('child', null, { priority: 'high' })
  // @ts-expect-error -- a child's id is childId
  ctx.startChild('child', null, { runId: 'c' })
  // @ts-expect-error -- all takes version and mode
  await ctx.all('child', [1], { concurrency: 2 })
  // @ts-expect-error -- allSettled takes version
  await ctx.allSettled('child', [1], { mode: 'waitAll' })
  const hook = await ctx.webhook()
  // @ts-expect-error -- a webhook wait takes timeoutMs
  await hook.wait({ timeout: 5 })
}

void test('options types are closed (checked by tsc; the bodies above never run)', () => {
  assert.equal(typeof engineCalls, 'function')
  assert.equal(typeof ctxCalls, 'function')
  assert.equal(typeof stepDefinitions, 'function')
})
