/**
 * The sockets of the connections a db transport half opens itself, made here and handed to the
 * driver (node-postgres' and mysql2's `stream` option), so a close whose connections do not end
 * — a statement, or the goodbye, that a database which stopped answering never acknowledges —
 * can cut them. Left open, they would keep the worker's process alive after its close.
 */
import net from 'node:net'

export class OwnSockets {
  readonly #open = new Set<net.Socket>()

  /** Kept until it closes. */
  track(socket: net.Socket): net.Socket {
    this.#open.add(socket)
    socket.once('close', () => this.#open.delete(socket))
    return socket
  }

  /** Destroys every socket still open: their connections fail at once, whatever they wait for. */
  cutAll(): void {
    for (const socket of this.#open) socket.destroy()
    this.#open.clear()
  }
}

/** For node-postgres: an unconnected socket, which the driver connects (as its own default). */
export function postgresSocket(sockets: OwnSockets): () => net.Socket {
  return () => sockets.track(new net.Socket())
}

/** What mysql2 hands a `stream` function: the connection's resolved settings. */
interface MysqlStreamOptions {
  config: {
    host: string
    port: number
    socketPath?: string
    enableKeepAlive: boolean
    keepAliveInitialDelay?: number
  }
}

/** For mysql2: a socket connected as the driver connects its own (no delay, keep-alive). */
export function mysqlSocket(sockets: OwnSockets): (options: MysqlStreamOptions) => net.Socket {
  return ({ config }) => {
    if (config.socketPath !== undefined) return sockets.track(net.connect(config.socketPath))
    const socket = net.connect(config.port, config.host)
    socket.setNoDelay(true)
    if (config.enableKeepAlive)
      socket.once('connect', () => socket.setKeepAlive(true, config.keepAliveInitialDelay))
    return sockets.track(socket)
  }
}
