import assert from 'node:assert/strict'
import {
  RunTerminalError,
  WebhookNotFoundError,
  webhookHttpResponse,
  type WorkflowContext,
} from '@cairn/core'
import type { CheckpointPage, StateStore } from '@cairn/core/contracts'
import { eachStore } from '../helpers/harness.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'

/** Counts what the webhook receiver reads: whole histories, and pages (by their limit). */
class CountingStore extends FlakyStore {
  constructor(inner: StateStore, reads: { full: number; pages: number[] }) {
    super(inner)
    const loadAll = this.loadCheckpoints
    const loadPage = this.loadCheckpointPage
    this.loadCheckpoints = (id) => {
      reads.full++
      return loadAll(id)
    }
    this.loadCheckpointPage = (id, page: CheckpointPage) => {
      reads.pages.push(page.limit)
      return loadPage(id, page)
    }
  }
}

eachStore('webhooks', (test) => {
  test('a webhook hands out an unguessable token bound to the run; the callback body reaches wait()', async (env) => {
    const engine = await env.engine({ webhookUrl: 'https://shop.example.com/durable/webhooks/' })
    const handed: { token: string; url: string | null }[] = []
    engine.register('pay', 1, async (ctx) => {
      const hook = await ctx.webhook()
      await ctx.localStep('send-link', () => handed.push({ token: hook.token, url: hook.url }))
      return hook.wait<{ paid: boolean }>({ timeoutMs: 3_600_000 })
    })
    const { runId } = await engine.start('pay', null)
    await env.settle()
    assert.equal(handed.length, 1)
    const { token, url } = handed[0]!
    assert.match(
      token,
      /^[A-Za-z0-9_-]+\.0\.[A-Za-z0-9_-]{22}$/,
      'run, position, and 22 base64url chars: 128 random bits',
    )
    assert.equal(url, `https://shop.example.com/durable/webhooks/${encodeURIComponent(token)}`)
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    assert.deepEqual(await engine.receiveWebhook(token, { paid: true }), {
      runId,
      status: 'accepted',
    })
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: { paid: true },
    })
  })

  test('a callback before wait() is kept and consumed once; repeats are duplicates', async (env) => {
    const engine = await env.engine()
    let token = ''
    engine.register('early', 1, async (ctx) => {
      const hook = await ctx.webhook()
      token = hook.token
      await ctx.sleep('1h') // the provider answers meanwhile, twice
      const first = await hook.wait()
      const second = await hook
        .wait({ timeoutMs: 1_000 })
        .catch((error: unknown) => (error as { code?: string }).code)
      return [first, second]
    })
    const { runId } = await engine.start('early', null)
    await env.settle()
    assert.equal((await engine.receiveWebhook(token, 'body-1')).status, 'accepted')
    assert.equal((await engine.receiveWebhook(token, 'body-2')).status, 'duplicate')
    await env.skip(3_600_000)
    await env.skip(1_000)
    assert.deepEqual(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      ['body-1', 'E_SIGNAL_TIMEOUT'],
    )
  })

  test('an unknown, forged or malformed token stores nothing; a finished run answers gone', async (env) => {
    const engine = await env.engine()
    let token = ''
    engine.register('w', 1, async (ctx) => {
      token = (await ctx.webhook()).token
      return 'done'
    })
    const { runId } = await engine.start('w', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const [runPart, position] = token.split('.')
    const forged = `${runPart}.${position}.${'A'.repeat(22)}`
    const elsewhere = `${runPart}.7.${token.split('.')[2]}` // the real secret, at another position
    for (const bad of [
      forged,
      elsewhere,
      'garbage',
      '',
      `${runPart}.`,
      `${runPart}.${position}.`,
      `${runPart}.01.${'A'.repeat(22)}`,
      `${runPart}.${'A'.repeat(22)}`, // the old two-part form
      'bm9ib2R5.0.AAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      const error = await engine.receiveWebhook(bad, 'x').catch((e: unknown) => e)
      assert.ok(WebhookNotFoundError.is(error), `${bad}: ${String(error)}`)
      assert.equal(webhookHttpResponse(error).status, 404)
    }
    const late = await engine.receiveWebhook(token, 'too late').catch((e: unknown) => e)
    assert.ok(RunTerminalError.is(late))
    assert.equal(webhookHttpResponse(late).status, 410)
    assert.equal(webhookHttpResponse({ runId, status: 'accepted' }).status, 202)
    assert.equal(webhookHttpResponse({ runId, status: 'duplicate' }).status, 200)
    assert.equal(webhookHttpResponse({ code: 'E_NOT_SERIALIZABLE' }).status, 400)
    assert.equal(webhookHttpResponse({ code: 'E_STORE_FAILURE' }).status, 503)
    assert.equal(webhookHttpResponse(new Error('boom')).status, 500)
  })

  test('a forged token naming a run with a long history is refused after one single-row read', async (env) => {
    const reads = { full: 0, pages: [] as number[] }
    const store = new CountingStore(env.handle.reopen(), reads)
    const engine = await env.engine({ store })
    engine.register('busy', 1, async (ctx) => {
      for (let i = 0; i < 300; i++) await ctx.localStep(`s${i}`, () => i)
      return (await ctx.webhook()).token
    })
    const { runId } = await engine.start('busy', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
    const real = (outcome as { output: string }).output
    const [runPart] = real.split('.')
    reads.full = 0
    reads.pages = []
    for (const position of ['0', '150', '300', '999999999']) {
      const error = await engine
        .receiveWebhook(`${runPart}.${position}.${'B'.repeat(22)}`, 'x')
        .catch((e: unknown) => e)
      assert.ok(WebhookNotFoundError.is(error), String(error))
    }
    assert.equal(reads.full, 0, 'the history was never loaded')
    assert.deepEqual(reads.pages, [1, 1, 1, 1], 'one row per forged token')
  })

  test('the token survives a restart: a replay hands out the same one', async (env) => {
    const tokens: string[] = []
    const body = async (ctx: WorkflowContext) => {
      const hook = await ctx.webhook()
      tokens.push(hook.token)
      await ctx.sleep('1h')
      return hook.wait()
    }
    const first = await env.engine({ instanceId: 'first' })
    first.register('w', 1, body)
    const { runId } = await first.start('w', null)
    await env.settle()
    await first.close()
    const second = await env.engine({ instanceId: 'second' })
    second.register('w', 1, body)
    await env.skip(3_600_000)
    await second.receiveWebhook(tokens[0]!, 'ok')
    assert.equal(
      ((await second.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'ok',
    )
    assert.ok(tokens.length >= 2 && tokens.every((t) => t === tokens[0]), 'one token across turns')
  })
})
