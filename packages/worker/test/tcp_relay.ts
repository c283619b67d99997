/**
 * A TCP relay in front of a real server (Postgres, MariaDB, Redis), for what a worker's close
 * meets when its backend goes away:
 * - `hold()`: new connections are accepted and wait, unanswered, until `release()` — a server
 *   slow to answer at connect time;
 * - `blackhole()`: nothing more is forwarded either way and nothing is ever closed from the
 *   server's side (not even after the client's FIN) — a server or network that stopped answering;
 * - `refuse()`: every connection is cut and new ones are closed at once — a server that is down.
 * `openConnections` counts the clients' connections still open: a transport that closed cleanly
 * leaves none.
 */
import net from 'node:net'

type Mode = 'pass' | 'hold' | 'blackhole' | 'refuse'

export class TcpRelay {
  readonly #target: { host: string; port: number }
  readonly #server: net.Server
  readonly #clients = new Set<net.Socket>()
  readonly #upstreams = new Set<net.Socket>()
  readonly #held: net.Socket[] = []
  #mode: Mode = 'pass'

  private constructor(target: { host: string; port: number }) {
    this.#target = target
    // Half-open allowed: a client's FIN is never answered by ours (a black hole keeps it open).
    this.#server = net.createServer({ allowHalfOpen: true }, (client) => this.#accept(client))
  }

  /** A relay to `url`'s host and port (`defaultPort` when it names none). */
  static async start(url: string, defaultPort: number): Promise<TcpRelay> {
    const { hostname, port } = new URL(url)
    const relay = new TcpRelay({ host: hostname, port: Number(port || defaultPort) })
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve))
    return relay
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port
  }

  /** `url` with the relay as its host and port. */
  urlFor(url: string): string {
    const relayed = new URL(url)
    relayed.host = `127.0.0.1:${this.port}`
    return relayed.toString()
  }

  get openConnections(): number {
    return this.#clients.size
  }

  hold(): void {
    this.#mode = 'hold'
  }

  release(): void {
    this.#mode = 'pass'
    for (const client of this.#held.splice(0)) this.#forward(client)
  }

  blackhole(): void {
    this.#mode = 'blackhole'
  }

  refuse(): void {
    this.#mode = 'refuse'
    for (const socket of [...this.#clients, ...this.#upstreams]) socket.destroy()
  }

  async close(): Promise<void> {
    for (const socket of [...this.#clients, ...this.#upstreams]) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #accept(client: net.Socket): void {
    this.#clients.add(client)
    client.on('error', () => {})
    client.on('close', () => this.#clients.delete(client))
    if (this.#mode === 'refuse') client.destroy()
    else if (this.#mode === 'hold') {
      client.pause()
      this.#held.push(client)
    } else if (this.#mode === 'pass') this.#forward(client)
  }

  #forward(client: net.Socket): void {
    const upstream = net.connect(this.#target.port, this.#target.host)
    this.#upstreams.add(upstream)
    upstream.on('error', () => {})
    upstream.on('close', () => {
      this.#upstreams.delete(upstream)
      if (this.#mode !== 'blackhole') client.destroy()
    })
    client.on('close', () => upstream.destroy())
    client.on('end', () => {
      if (this.#mode !== 'blackhole') upstream.end()
    })
    client.on('data', (chunk: Buffer) => {
      if (this.#mode === 'pass') upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (this.#mode === 'pass') client.write(chunk)
    })
    client.resume()
  }
}
