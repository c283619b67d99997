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
    await call(f.dashboard, `/api/runs/${runId}`)
    await call(f.dashboard, `/api/runs/${runId}/continue`, { body: { payload } })
    await call(f.dashboard, '/api/runs/missing/signal', { body: { name: 'go', payload } })
    await call(f.dashboard, `/api/runs/${runId}/signal`, { body: { name: MARKER, payload } })
    await call(f.dashboard, `/api/runs/${runId}/cancel`, {
      body: { reason: MARKER, extra: MARKER },
    })
    await call(f.dashboard, `/api/runs?attr=${MARKER}`)
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
