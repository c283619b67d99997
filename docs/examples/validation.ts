/**
 * docs/validation.md, runnable: a workflow's `inputSchema` refuses a bad start before any run
 * exists, and stores the schema's value for a good one; a step's `input` and `output` schemas
 * run around its handler, and a mismatch fails the step at once (E_SCHEMA_VALIDATION, never
 * retried). VineJS here; Zod, Valibot, ArkType — any Standard Schema — work the same.
 */
import assert from 'node:assert/strict'
import vine from '@vinejs/vine'
import { defineStep, Engine, MemoryStore, silentLogger } from '@cairn/core'

const orderInput = vine.compile(
  vine.object({
    sku: vine.string().trim().minLength(1),
    quantity: vine.number().withoutDecimals().min(1).max(20),
  }),
)
const reservation = vine.compile(vine.object({ reserved: vine.number().min(1) }))

// The handler's input is typed from the schema: { sku: string; quantity: number }.
const reserve = defineStep(
  'reserve',
  async (input) => ({ reserved: input.sku === 'sold-out' ? 0 : input.quantity }),
  { input: orderInput, output: reservation, retries: 5 },
)

const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
engine.registerStep(reserve)
engine.register(
  'order',
  1,
  async (ctx, input: { sku: string; quantity: number }) => ctx.step(reserve, input),
  { inputSchema: orderInput },
)
await engine.startDriving()

// 1. A bad start: refused with the schema's issues, and no run exists.
await assert.rejects(
  engine.start('order', { sku: '', quantity: 50 }, { runId: 'bad' }),
  (error) => {
    const { code, details } = error as { code: string; details: { issues: { path: unknown[] }[] } }
    assert.equal(code, 'E_SCHEMA_VALIDATION')
    assert.deepEqual(
      details.issues.map((issue) => issue.path),
      [['sku'], ['quantity']],
    )
    return true
  },
)
assert.equal(await engine.getRun('bad'), null)

// 2. A good one: the run stores what the schema gave back (trimmed once, here).
await engine.start('order', { sku: '  mug ', quantity: 2 }, { runId: 'good' })
assert.deepEqual((await engine.getRun('good'))?.input, { sku: 'mug', quantity: 2 })
assert.deepEqual((await engine.waitForRun('good', { timeoutMs: 5_000 })).status, 'completed')

// 3. A result its output schema refuses fails the step once — no retry would change it.
await engine.start('order', { sku: 'sold-out', quantity: 1 }, { runId: 'empty' })
const outcome = await engine.waitForRun('empty', { timeoutMs: 5_000 })
assert.equal(outcome.status, 'failed')
const [step] = await engine.getSteps('empty')
assert.equal(step?.attempts, 1)
assert.match(step?.error?.message ?? '', /output of step "reserve" does not match its schema/)

await engine.close()
console.log('validation example: ok')
