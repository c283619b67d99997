/**
 * `ctx.webhook()`: a one-shot callback address for a third party (a payment provider, an
 * e-signature service). The token is random and unguessable (128 bits from the OS CSPRNG),
 * recorded at its position before it is handed out, so a replay hands out the same one. A
 * callback that lands before `wait()` is kept in the run's inbox and consumed once; later
 * callbacks with the same token are duplicates.
 */
import { randomBytes } from 'node:crypto'
import { waitForMessage } from './signal_wait.ts'
import type { TurnRuntime } from './runtime.ts'
import type { SignalWaitOptions, Webhook } from './types.ts'
import { RESERVED_PREFIX } from './wait_names.ts'

const SECRET_BYTES = 16

export function webhook(rt: TurnRuntime, baseUrl: string | null): Promise<Webhook> {
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, 'webhook', 'webhook')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<{ token: string }>(seq)
  if (record === undefined) {
    const token = webhookToken(rt.runId, randomBytes(SECRET_BYTES).toString('base64url'))
    const step = {
      seq,
      name: 'webhook',
      kind: 'webhook' as const,
      attempts: 1,
      startedAt: rt.clock.now(),
    }
    rt.complete(step, { ok: true, output: rt.codec.encode({ token }) })
  }
  return outcome.then(({ token }) => ({
    token,
    url: baseUrl === null ? null : `${baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(token)}`,
    wait: <T = unknown>(options?: SignalWaitOptions) =>
      waitForMessage<T>(rt, webhookSignalName(parseWebhookToken(token)?.secret ?? ''), options),
  }))
}

/** `<run id, base64url>.<secret>`: the receiver finds the run without a lookup table. */
export function webhookToken(runId: string, secret: string): string {
  return `${Buffer.from(runId).toString('base64url')}.${secret}`
}

export function parseWebhookToken(token: unknown): { runId: string; secret: string } | null {
  if (typeof token !== 'string' || token.length > 1_000) return null
  const dot = token.indexOf('.')
  if (dot <= 0 || dot === token.length - 1) return null
  const secret = token.slice(dot + 1)
  if (!/^[A-Za-z0-9_-]{22}$/.test(secret)) return null
  const runId = Buffer.from(token.slice(0, dot), 'base64url').toString('utf8')
  return runId === '' ? null : { runId, secret }
}

export function webhookSignalName(secret: string): string {
  return `${RESERVED_PREFIX}webhook:${secret}`
}
