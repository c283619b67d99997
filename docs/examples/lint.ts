/**
 * docs/lint.md's example, runnable: @cairn/eslint-plugin's recommended config lints a workflow
 * with ESLint's own API. Every nondeterministic call in the body is reported with its fix; the
 * same calls inside steps are not.
 */
import assert from 'node:assert/strict'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import cairn from '@cairn/eslint-plugin'

const CHECKOUT = `
import { Engine, MemoryStore } from '@cairn/core'

const engine = new Engine({ store: new MemoryStore() })

engine.register('checkout', 1, async (ctx, order: { id: string; url: string }) => {
  const placedAt = new Date()
  const reference = crypto.randomUUID()
  const receipt = await fetch(order.url)
  await new Promise((resolve) => setTimeout(resolve, 60_000))
  const region = process.env.REGION

  // The same, replay-safe: recorded once, returned from the record on every replay.
  const at = ctx.now()
  const id = await ctx.sideEffect(() => crypto.randomUUID())
  const paid = await ctx.localStep('pay', async () => (await fetch(order.url)).ok)
  await ctx.sleep('1m')
  const stampedAt = await ctx.localStep('stamp', () => new Date().toISOString())
  return { placedAt, reference, receipt, region, at, id, paid, stampedAt }
})
`

const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    cairn.configs.recommended,
  ],
})
const [result] = await eslint.lintText(CHECKOUT, { filePath: 'checkout.ts' })
const findings = (result?.messages ?? []).map((m) => [m.line, m.messageId])

assert.deepEqual(findings, [
  [7, 'clock'],
  [8, 'random'],
  [9, 'io'],
  [10, 'timer'],
  [11, 'env'],
])
assert.match(
  result?.messages[0]?.message ?? '',
  /new Date\(\) reads this machine's clock.*Use ctx\.now\(\)/,
)

console.log(
  `no-nondeterminism: ${findings.length} findings in the body (${findings.map(([, id]) => id).join(', ')}), none in its steps`,
)
