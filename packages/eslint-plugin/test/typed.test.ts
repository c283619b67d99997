/**
 * no-nondeterminism with type information: types drop what only looks like a Cairn workflow
 * (another library's register, BaseWorkflow or WorkflowContext), find bodies no shape names (a
 * function typed WorkflowBody through its context, a subclass of a subclass of BaseWorkflow),
 * and an unresolved type (`any`) falls back to the shape. Each tricky case is also run without
 * types where the answers differ, to show what types change.
 */
import { TYPED_FILE, inBody, rule, typedTester, untypedTester } from './rule_tester.ts'

const CORE = "import { Engine, type WorkflowBody, type WorkflowContext } from '@cairn/core'"
const ADONIS = "import { BaseWorkflow } from '@cairn/adonis'"

const typed = (code: string) => ({ code, filename: TYPED_FILE })
const clockError = { messageId: 'clock' }

/** Another library's look-alikes: reported by shape, not once types say they are not Cairn's. */
const LOOK_ALIKES = {
  register: `
    declare const server: { register(name: string, version: number, plugin: (app: object) => unknown): void }
    server.register('cache', 1, async (app) => Date.now())`,
  baseWorkflow: `
    abstract class BaseWorkflow { abstract run(): unknown }
    class Nightly extends BaseWorkflow { run() { return Date.now() } }`,
  workflowContext: `
    interface WorkflowContext { tenant: string }
    export function stamp(ctx: WorkflowContext) { return Date.now() }`,
  workflowBody: `
    type WorkflowBody = (request: Request) => Promise<unknown>
    export const handler: WorkflowBody = async (request) => Date.now()`,
}

/** What types find that no shape names. */
const FOUND_BY_TYPES = {
  contextuallyTyped: `${CORE}
    export const bodies: Record<string, WorkflowBody> = { order: async (ctx) => Date.now() }`,
  indirectSubclass: `${ADONIS}
    abstract class AppWorkflow<I, O> extends BaseWorkflow<I, O> {}
    export class Nightly extends AppWorkflow<null, number> { async run() { return Date.now() } }`,
  notAStep: `${CORE}
    declare const db: { transaction(name: string, fn: () => unknown): Promise<unknown> }
    export const body: WorkflowBody = async (ctx) => { await db.transaction('save', () => Date.now()) }`,
}

typedTester().run('no-nondeterminism with types', rule, {
  valid: [
    ...Object.values(LOOK_ALIKES).map(typed),
    typed(`${CORE}
      declare const engine: Engine
      engine.register('order', 1, async (ctx) => ctx.localStep('stamp', () => Date.now()))`),
    typed(`${CORE}
      declare const engine: Engine
      engine.register('order', 1, async (ctx) => {
        const Date = { now: () => 0 }
        return Date.now() + ctx.now().getTime()
      })`),
    typed(`${ADONIS}
      import type { WorkflowContext } from '@cairn/core'
      export class Order extends BaseWorkflow<null, number> {
        async run(ctx: WorkflowContext) { return ctx.sideEffect(() => Math.random()) }
      }`),
  ],
  invalid: [
    ...Object.values(FOUND_BY_TYPES).map((code) => ({ ...typed(code), errors: [clockError] })),
    {
      ...typed(`${CORE}
        declare const engine: Engine
        engine.register('order', 1, async (ctx, input: { url: string }) => {
          const started = Date.now()
          await fetch(input.url)
          return started
        })`),
      errors: [clockError, { messageId: 'io' }],
    },
    {
      ...typed(`${CORE}
        import { createTestEngine } from '@cairn/core/testing'
        const t = await createTestEngine()
        t.engine.register('order', 1, async () => Math.random())`),
      errors: [{ messageId: 'random' }],
    },
    {
      ...typed(`${ADONIS}
        import type { WorkflowContext } from '@cairn/core'
        export class Order extends BaseWorkflow<null, string> {
          async run(ctx: WorkflowContext) { return this.#stamp(ctx) }
          async #stamp(ctx: WorkflowContext) { return new Date().toISOString() }
        }`),
      errors: [clockError],
    },
    // A receiver TypeScript cannot resolve (`any`) is judged by its shape.
    {
      ...typed(`declare const engine: any
        engine.register('order', 1, async (ctx: any) => Date.now())`),
      errors: [clockError],
    },
    {
      ...typed(`import { Engine } from '@cairn/not-installed'
        declare const engine: Engine
        engine.register('order', 1, async (ctx) => Date.now())`),
      errors: [clockError],
    },
    // Types change nothing about shadowing: a global Date inside a typed body is reported.
    {
      ...typed(`${CORE}
        declare const engine: Engine
        ${inBody('const Clock = Date; return Date.now()')}`),
      errors: [clockError],
    },
  ],
})

// Without types: the look-alikes have Cairn's shapes, the bodies found by types have none,
// and `db.transaction('save', fn)` has the shape of ctx.transaction (a step).
untypedTester().run('no-nondeterminism without types, on the same code', rule, {
  valid: Object.values(FOUND_BY_TYPES),
  invalid: Object.values(LOOK_ALIKES).map((code) => ({ code, errors: [clockError] })),
})
