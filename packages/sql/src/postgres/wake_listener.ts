/**
 * watchClaimable: a dedicated connection LISTENing on the schema's wake channel (a pooled
 * connection cannot LISTEN: it serves other statements and goes back to the pool). When the
 * connection fails (server restart, pg_terminate_backend, a network cut detected by TCP
 * keepalive) it reconnects with jittered back-off, 50 ms doubling to 5 s, until stopped.
 * Hints published while it is down are lost: engines poll as the safety net.
 */
import pg from 'pg'
import type { ClientConfig, Notification } from 'pg'

export interface WakeListenerOptions {
  config: ClientConfig
  channel: string
  onWake: (at: number) => void
}

const FIRST_BACKOFF_MS = 50
const MAX_BACKOFF_MS = 5_000
const KEEPALIVE_DELAY_MS = 10_000

/** Resolves once listening (rejects if the first connection fails); returns the stop function. */
export async function startWakeListener(
  options: WakeListenerOptions,
): Promise<() => Promise<void>> {
  const listener = new WakeListener(options)
  await listener.connect()
  return () => listener.stop()
}

class WakeListener {
  readonly #options: WakeListenerOptions
  #client: pg.Client | null = null
  #timer: NodeJS.Timeout | null = null
  #failures = 0
  #stopped = false

  constructor(options: WakeListenerOptions) {
    this.#options = options
  }

  async connect(): Promise<void> {
    const client = new pg.Client({
      ...this.#options.config,
      application_name: 'cairn-wake',
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    })
    // Without an 'error' listener a failing connection would crash the process.
    client.on('error', () => this.#lost(client))
    client.on('end', () => this.#lost(client))
    client.on('notification', (message) => this.#deliver(message))
    try {
      await client.connect()
      await client.query(`LISTEN ${quoteIdent(this.#options.channel)}`)
    } catch (error) {
      await client.end().catch(() => undefined)
      throw error
    }
    if (this.#stopped) return void (await client.end())
    this.#client = client
    this.#failures = 0
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    const client = this.#client
    this.#client = null
    await client?.end().catch(() => undefined)
  }

  #deliver(message: Notification): void {
    if (message.channel !== this.#options.channel) return
    const at = Number(message.payload)
    if (!Number.isSafeInteger(at)) return
    try {
      this.#options.onWake(at)
    } catch {
      // A hint must not take the connection down with it; the engine polls anyway.
    }
  }

  #lost(client: pg.Client): void {
    if (client !== this.#client) return
    this.#client = null
    client.end().catch(() => undefined)
    this.#reconnectLater()
  }

  #reconnectLater(): void {
    if (this.#stopped || this.#timer !== null) return
    const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.#failures++)
    this.#timer = setTimeout(
      () => {
        this.#timer = null
        if (!this.#stopped) this.connect().catch(() => this.#reconnectLater())
      },
      Math.round(ceiling * (0.5 + Math.random() / 2)),
    )
    this.#timer.unref()
  }
}

/**
 * A quoted identifier. Written here rather than taken from dialect.ts so the db transport's
 * workers, which listen too, load no module of the store.
 */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
