/**
 * One HTTP request suite for every way the dashboard is served — standalone (serveDashboard)
 * and mounted in an AdonisJS app — so a request means the same thing whichever server
 * carries it: bodies arrive byte for byte, a body that is missing or not JSON is refused
 * (415/400) and never read as `{}`, bulk actions need an explicit filter, and prototype keys
 * are refused. Each served variant passes `Served` and runs `runHttpSuite`.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'

export const SUITE_TOKEN = 'suite-token-0123456789abcdef'

export interface Served {
  /** The dashboard's base URL (its mount path included), without a trailing slash. */
  base: string
  engine: Engine
}

/** Registers what the suite drives: a workflow that returns the first signal it gets. */
export function registerSuiteWorkflows(engine: Engine): void {
  engine.register('suite-wait', 1, async (ctx) => ctx.waitForSignal('go'))
}

async function send(served: Served, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${SUITE_TOKEN}`)
  const response = await fetch(`${served.base}${path}`, { ...init, headers })
  const text = await response.text()
  let json: { error?: { code?: string }; matched?: number } = {}
  try {
    json = JSON.parse(text) as typeof json
  } catch {
    // not JSON: the assertions look at the status
  }
  return { status: response.status, json, text }
}

const post = (served: Served, path: string, body: string | undefined, type?: string) =>
  send(served, path, {
    method: 'POST',
    ...(body === undefined ? {} : { body }),
    ...(type === undefined ? {} : { headers: { 'content-type': type } }),
  })

async function openRuns(served: Served, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) ids.push((await served.engine.start('suite-wait', null)).runId)
  return ids
}

async function stillOpen(served: Served, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const status = (await served.engine.getRun(id))?.status
    assert.ok(
      status === 'pending' || status === 'running' || status === 'waiting',
      `${id}: ${status}`,
    )
  }
}

export async function runHttpSuite(served: Served): Promise<void> {
  const bystanders = await openRuns(served, 3)
  const bulk = '{"filter":{"workflow":"nope"},"dryRun":true}'

  // The body a form, or text, or nothing: refused for what it is, never an empty filter.
  // (415 from the dashboard; a framework's own parser may refuse a malformed multipart first.)
  for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data']) {
    const { status } = await post(served, '/api/bulk/cancel', bulk, type)
    assert.ok(status === 415 || status === 400, `bulk cancel sent as ${type}: ${status}`)
  }
  assert.equal((await post(served, '/api/bulk/cancel', undefined)).status, 415, 'no body')
  assert.equal((await post(served, '/api/bulk/cancel', '', 'application/json')).status, 400)
  await stillOpen(served, bystanders)

  // Bulk filters: explicit, and never widened by an empty list.
  const noFilter = await post(served, '/api/bulk/cancel', '{"dryRun":true}', 'application/json')
  assert.equal(noFilter.status, 400, 'a bulk action without a filter')
  const emptyList = '{"filter":{"workflow":[]},"dryRun":true}'
  assert.equal((await post(served, '/api/bulk/cancel', emptyList, 'application/json')).status, 400)
  const dry = await post(served, '/api/bulk/cancel', bulk, 'application/json')
  assert.equal(dry.status, 200, dry.text)
  assert.equal(dry.json.matched, 0)
  await stillOpen(served, bystanders)

  // A JSON body arrives byte for byte: spaces and empty strings as sent.
  const [target] = await openRuns(served, 1)
  await served.engine.whenQuiet()
  const signal =
    '{"name":"go","payload":{"text":"  spaced  ","empty":"","é":"\\u00e9"},"signalId":"s-1"}'
  const sent = await post(
    served,
    `/api/runs/${target}/signal`,
    signal,
    'application/json; charset=utf-8',
  )
  assert.equal(sent.status, 200, sent.text)
  const outcome = await served.engine.waitForRun(target as string, { timeoutMs: 10_000 })
  assert.deepEqual(outcome, {
    runId: target,
    status: 'completed',
    output: { text: '  spaced  ', empty: '', é: 'é' },
  })

  // Single actions: JSON or nothing.
  const [victim] = await openRuns(served, 1)
  assert.equal(
    (
      await post(
        served,
        `/api/runs/${victim}/cancel`,
        'reason=x',
        'application/x-www-form-urlencoded',
      )
    ).status,
    415,
  )
  assert.equal(
    (await post(served, `/api/runs/${victim}/cancel`, '{}', 'application/json')).status,
    200,
  )

  // Prototype keys are refused, on reads and in bulk filters.
  assert.equal((await send(served, '/api/runs?attr=__proto__:gt:5')).status, 400)
  const proto = '{"filter":{"attr":"constructor:eq:1"},"dryRun":true}'
  assert.equal((await post(served, '/api/bulk/cancel', proto, 'application/json')).status, 400)

  await stillOpen(served, bystanders)
  for (const id of bystanders) await served.engine.cancel(id)
}
