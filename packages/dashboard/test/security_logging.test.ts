/**
 * Security: payloads never reach the logs. Every route that takes a payload is driven with
 * a marker in it, through successes, refusals and an unexpected failure, with a logger that
 * keeps every line.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, capturingLogger, fixture, type Fixture } from './helpers.ts'

const MARKER = 'PAYLOAD-MARKER-7f3a'

void describe('security: payloads are never logged', () => {
  let f: Fixture
  const logger = capturingLogger()
  before(async () => (f = await fixture({ logger })))
  after(() => f.close())

  void test('no log line carries a payload, even when a request fails unexpectedly', async () => {
    const { runId } = await f.engine.start('wait', { card: MARKER })
    await f.engine.whenQuiet()
    const payload = { secret: MARKER }
    // Each call reaches the answer it is meant to (read, accepted, refused): a call stopped
    // early, before anything could log, would prove nothing.
    const calls: Array<[string, { body?: unknown }, number]> = [
      [`/api/runs/${runId}`, {}, 200],
      [`/api/runs/${runId}/continue`, { body: { payload } }, 409],
      ['/api/runs/missing/signal', { body: { name: 'go', payload } }, 404],
      [`/api/runs/${runId}/signal`, { body: { name: MARKER, payload } }, 200],
      [`/api/runs/${runId}/cancel`, { body: { reason: MARKER, extra: MARKER } }, 400],
      [`/api/runs?attr=${MARKER}`, {}, 400],
    ]
    for (const [path, init, status] of calls) {
      assert.equal((await call(f.dashboard, path, init)).status, status, path)
    }
    f.engine.signal = async (_token, sent) => {
      throw new Error(`store rejected ${JSON.stringify(sent)}`)
    }
    const failed = await call(f.dashboard, `/api/runs/${runId}/signal`, {
      body: { name: 'go', payload },
    })
    assert.equal(failed.status, 500)
    assert.ok(logger.lines.length > 0, 'the failure was logged')
    for (const line of logger.lines) assert.equal(line.includes(MARKER), false, line)
  })
})
