/**
 * Where no-nondeterminism looks, without type information: which functions are workflow
 * bodies (by the shape of the code: the register call, a BaseWorkflow subclass, WorkflowBody and
 * WorkflowContext annotations) and which are step callbacks, recorded once and left alone.
 */
import { inBody, rule, untypedTester } from './rule_tester.ts'

const clockError = { messageId: 'clock' }

untypedTester().run('no-nondeterminism: workflow bodies and step callbacks', rule, {
  valid: [
    // Step callbacks run once; replay returns their record.
    inBody("await ctx.localStep('stamp', () => Date.now())"),
    inBody("await ctx.localStep('load', async ({ signal }) => fetch(input.url, { signal }))"),
    inBody("await ctx.localStep('stamp', () => Date.now(), { retries: 3 })"),
    inBody("await ctx?.localStep('stamp', () => Date.now())"),
    inBody("await this.ctx.localStep('stamp', function () { return new Date() })"),
    inBody('const id = await ctx.sideEffect(() => crypto.randomUUID())'),
    inBody("const roll = await ctx.sideEffect(() => Math.random(), 'roll')"),
    inBody("await ctx.transaction('save', async (trx) => trx.insert({ at: new Date() }))"),
    // A function nested in a step callback is step code too.
    inBody(
      "await ctx.localStep('stamp', async () => { const at = () => Date.now(); return at() })",
    ),
    // A helper of the body's own that only steps use.
    inBody("const load = () => fetch(input.url)\nawait ctx.localStep('load', load)"),
    inBody(
      "function stamp() { return Date.now() }\nawait ctx.localStep('a', () => stamp())\nawait ctx.localStep('b', stamp)",
    ),
    // A saga's undo runs as a recorded step.
    inBody(
      "await ctx.localStep('charge', () => pay(), { compensate: (charge) => fetch(charge.refundUrl) })",
    ),
    inBody('await ChargeStep.invoke(ctx, input, { compensate: () => setTimeout(() => {}, 10) })'),
    // Not workflow bodies: other register calls, other classes, other methods.
    'app.register(async (instance) => { instance.decorate("now", Date.now()) })',
    "app.register('plugin', async () => { Date.now() })",
    "engine.register('order', 1, async (ctx) => {}, {}, 'one argument too many', () => Date.now())",
    "engine.registerStep('charge', async () => fetch('https://pay.example'))",
    "defineStep('charge', async () => { Date.now() })",
    'class Job { async run() { return Date.now() } }',
    'class ChargeCard extends BaseStep { async run(input) { return Math.random() } }',
    'class Order extends BaseWorkflow { static async run() { return Date.now() } }',
    'class Order extends BaseWorkflow { constructor() { super(); this.at = Date.now() } }',
    'class Order extends BaseWorkflow { describe() { return new Date() } }',
    // A function of the module, not given `ctx`, is not followed into (docs/lint.md).
    `function now() { return Date.now() }\n${inBody('const at = now()')}`,
  ],
  invalid: [
    {
      code: "engine.register('order', 1, async function (ctx) { Date.now() })",
      errors: [clockError],
    },
    {
      code: "engine.register('order', 1, async (ctx) => { Date.now() }, { retry: { retries: 1 } })",
      errors: [clockError],
    },
    { code: "engine?.register('order', 1, async (ctx) => Date.now())", errors: [clockError] },
    { code: "this.engine.register('order', 1, async () => Date.now())", errors: [clockError] },
    {
      code: "engine.register('order', 1, (async (ctx) => Date.now()) as WorkflowBody)",
      errors: [clockError],
    },
    // Registered by name: the function of the same file is the body.
    {
      code: "async function orderV1(ctx, input) { return Date.now() }\nengine.register('order', 1, orderV1)",
      errors: [clockError],
    },
    {
      code: "const orderV2 = async (ctx) => Date.now()\nengine.register('order', 2, orderV2)",
      errors: [clockError],
    },
    // BaseWorkflow subclasses: run and deadLetter, methods or arrow properties.
    {
      code: 'class Order extends BaseWorkflow<Input, Output> { async run(ctx, input) { return Date.now() } }',
      errors: [clockError],
    },
    {
      code: 'export default class extends BaseWorkflow { async run() { return new Date() } }',
      errors: [clockError],
    },
    {
      code: 'class Order extends adonis.BaseWorkflow { async deadLetter(ctx, dead) { Date() } }',
      errors: [clockError],
    },
    {
      code: 'class Order extends BaseWorkflow { run = async (ctx) => Date.now() }',
      errors: [clockError],
    },
    {
      code: "class Order extends BaseWorkflow { async ['run'](ctx) { return Date.now() } }",
      errors: [clockError],
    },
    // Typed WorkflowBody: annotation, satisfies, qualified name.
    {
      code: 'const body: WorkflowBody<In, Out> = async (ctx, input) => ({ at: Date.now() })',
      errors: [clockError],
    },
    {
      code: 'export const body = (async (ctx) => Date.now()) satisfies WorkflowBody',
      errors: [clockError],
    },
    { code: 'const body: cairn.WorkflowBody = async () => Date.now()', errors: [clockError] },
    // A helper handed the body's ctx runs in the body.
    {
      code: 'async function charge(ctx: WorkflowContext, order: Order) { return Date.now() }',
      errors: [clockError],
    },
    {
      code: 'class Order extends BaseWorkflow { async #checkout(ctx: WorkflowContext, input: In) { Date.now() } }',
      errors: [clockError],
    },
    {
      code: 'const stamp = (ctx: WorkflowContext = current()) => Date.now()',
      errors: [clockError],
    },
    // Functions nested in the body run in the body: helpers, callbacks, handlers.
    { code: inBody('const stamp = () => Date.now()\nconst at = stamp()'), errors: [clockError] },
    {
      code: inBody(
        "function stamp() { return Date.now() }\nawait ctx.localStep('a', stamp)\nstamp()",
      ),
      errors: [clockError],
    },
    { code: inBody('input.items.map(() => Date.now())'), errors: [clockError] },
    { code: inBody("await ctx.sleep('1s').then(() => Date.now())"), errors: [clockError] },
    {
      code: inBody("await ctx.onUpdate('rename', { validate: () => Date.now() > input.deadline })"),
      errors: [clockError],
    },
    // A `transaction(fn)` that is not ctx.transaction(name, fn) runs its callback in the body.
    { code: inBody('await db.transaction(async (trx) => Date.now())'), errors: [clockError] },
    // Only the step callback is exempt, not its neighbours.
    {
      code: inBody("await ctx.localStep('a', () => Date.now(), { retries: Date.now() })"),
      errors: [clockError],
    },
  ],
})
