/**
 * `ctx.webhook()`: a one-shot callback address for a third party (a payment provider, an
 * e-signature service). The token is random and unguessable (128 bits from the OS CSPRNG),
 * recorded at its position before it is handed out, so a replay hands out the same one. A
 * callback that lands before `wait()` is kept in the run's inbox and consumed once; later
 * callbacks with the same token are duplicates.
 */
import { randomBytes } from 'node:crypto'
import { waitForMessage } from './signal_wait.ts'
import { WEBHOOK_WAIT_OPTIONS } from './option_specs.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
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
    const token = webhookToken(rt.runId, seq, randomBytes(SECRET_BYTES).toString('base64url'))
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
    wait: <T = unknown>(options?: SignalWaitOptions) => {
      checkOptionKeys(options, WEBHOOK_WAIT_OPTIONS)
      return waitForMessage<T>(
        rt,
        webhookSignalName(parseWebhookToken(token)?.secret ?? ''),
        options,
      )
    },
  }))
}

/**
 * `<run id, base64url>.<position>.<secret>`: the receiver finds the run and the one position
 * that recorded the token without a lookup table, so a forged token naming a real run costs
 * one single-row read to refuse, however long the run's history.
 */
export function webhookToken(runId: string, seq: number, secret: string): string {
  return `${Buffer.from(runId).toString('base64url')}.${seq}.${secret}`
}

export function parseWebhookToken(
  token: unknown,
): { runId: string; seq: number; secret: string } | null {
  if (typeof token !== 'string' || token.length > 1_000) return null
  const parts = token.split('.')
  if (parts.length !== 3) return null
  const [encodedRunId, position, secret] = parts as [string, string, string]
  if (!/^(0|[1-9]\d{0,8})$/.test(position) || !/^[A-Za-z0-9_-]{22}$/.test(secret)) return null
  const runId = Buffer.from(encodedRunId, 'base64url').toString('utf8')
  return runId === '' ? null : { runId, seq: Number(position), secret }
}

export function webhookSignalName(secret: string): string {
  return `${RESERVED_PREFIX}webhook:${secret}`
}
