/**
 * no-nondeterminism: reports, in workflow bodies, the calls that make a replay take a
 * different path than the run it replays — clock reads, randomness, plain timers, I/O and
 * process.env — each with the Cairn primitive that does the same thing replay-safely. Code in
 * step callbacks is not reported: a step runs once and its result is recorded.
 *
 * What a body is: workflow_bodies.js; what a step callback is: step_callbacks.js; what is
 * reported: nondeterministic_apis.js.
 */
import { apiPath } from '../api_paths.js'
import { moduleName, readsOf } from '../bindings.js'
import { classifyCall, classifyRead, displayName, IO_MODULES } from '../nondeterministic_apis.js'
import { createPlacement } from '../placement.js'

/** @typedef {import('../nondeterministic_apis.js').MessageId} MessageId */
/** @typedef {[{ ioModules?: string[] }]} Options */
/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('@typescript-eslint/utils').TSESTree.CallExpression} CallExpression */
/** @typedef {import('@typescript-eslint/utils').TSESTree.NewExpression} NewExpression */

/** @type {import('@typescript-eslint/utils').TSESLint.RuleModule<MessageId, Options>} */
export const noNondeterminism = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Disallow clock reads, randomness, plain timers, I/O and process.env in Cairn workflow bodies',
      url: 'https://github.com/cairn-dev/cairn/blob/main/docs/lint.md',
    },
    // Message ids are stable: suppressions and tests name them.
    messages: {
      clock:
        "{{api}} reads this machine's clock, which has moved on when the run replays. Use ctx.now(): the time the run last received an outcome, the same on every replay.",
      random:
        '{{api}} returns a different value on every replay. Record it once with ctx.sideEffect(() => …).',
      timer:
        '{{api}} is a plain timer: it is not recorded and the engine cannot wake the run for it. Use await ctx.sleep(duration).',
      io: '{{api}} reaches outside the process from the workflow body: it runs again on every replay and its result is not recorded. Move it into a step: ctx.localStep(name, () => …) or ctx.step(…).',
      env: 'process.env can differ in the process that replays this run. Read it outside the workflow (configuration), or record it with ctx.sideEffect(() => process.env.NAME).',
    },
    schema: [
      {
        type: 'object',
        properties: {
          ioModules: {
            description:
              "More modules every call of which is I/O (a database driver, an HTTP client): 'pg' also covers 'pg/…'.",
            type: 'array',
            items: { type: 'string', minLength: 1 },
            uniqueItems: true,
          },
        },
        additionalProperties: false,
      },
    ],
    defaultOptions: [{ ioModules: [] }],
  },
  defaultOptions: [{ ioModules: [] }],

  create(context) {
    const sourceCode = context.sourceCode
    const runsInWorkflowBody = createPlacement(sourceCode)
    const ioModules = [...IO_MODULES, ...(context.options[0]?.ioModules ?? [])]
    /** @param {string} module */
    const isIoModule = (module) =>
      ioModules.some((io) => module === io || module.startsWith(`${io}/`))

    /**
     * @param {Node} node
     * @param {MessageId} messageId
     * @param {string} api
     */
    function report(node, messageId, api) {
      if (runsInWorkflowBody(node)) context.report({ node, messageId, data: { api } })
    }

    /** @param {CallExpression | NewExpression} node */
    function checkCall(node) {
      const path = apiPath(sourceCode, node.callee)
      if (path === null) return
      const isNew = node.type === 'NewExpression'
      const messageId = classifyCall(path, {
        isNew,
        argumentCount: node.arguments.length,
        isIoModule,
      })
      if (messageId === null) return
      report(
        node,
        messageId,
        displayName(path, { isNew, written: sourceCode.getText(node.callee) }),
      )
    }

    return {
      CallExpression: checkCall,
      NewExpression: checkCall,
      MemberExpression(node) {
        const path = apiPath(sourceCode, node)
        const messageId = path === null ? null : classifyRead(path)
        if (messageId !== null) report(node, messageId, 'process.env')
      },
      // `import { env } from 'node:process'`: every read of `env` is a read of process.env.
      ImportSpecifier(node) {
        const imported =
          node.imported.type === 'Identifier' ? node.imported.name : node.imported.value
        if (imported !== 'env' || node.parent.type !== 'ImportDeclaration') return
        if (moduleName(node.parent.source.value) !== 'process') return
        for (const variable of sourceCode.getDeclaredVariables(node)) {
          for (const read of readsOf(variable)) report(read, 'env', 'process.env')
        }
      },
    }
  },
}
