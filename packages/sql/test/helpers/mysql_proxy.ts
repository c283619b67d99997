/**
 * A TCP proxy in front of the MySQL server that cuts a connection at a chosen statement: the
 * way to lose a connection during COMMIT, or during an autocommitted write, at an exact
 * point. It reads the client's packets (3-byte length, sequence id, payload; COM_QUERY is
 * payload byte 0x03 followed by the SQL) and, for the next query matching the armed pattern,
 * either drops the connection before the server sees it (`before`) or forwards it and drops
 * the connection when the server answers, so the client never learns the outcome (`after`).
 */
import net from 'node:net'
import { MYSQL_URL } from './mysql.ts'

const COM_QUERY = 0x03

interface Armed {
  pattern: RegExp
  when: 'before' | 'after'
  done: () => void
}

export class MysqlProxy {
  readonly #server: net.Server
  readonly #sockets = new Set<net.Socket>()
  #armed: Armed | null = null

  private constructor(server: net.Server) {
    this.#server = server
  }

  static async start(): Promise<MysqlProxy> {
    const target = new URL(MYSQL_URL)
    const server = net.createServer()
    const proxy = new MysqlProxy(server)
    server.on('connection', (client) =>
      proxy.#pipe(client, target.hostname, Number(target.port || 3306)),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return proxy
  }

  /** MYSQL_URL with the proxy as host, without a database. */
  get url(): string {
    const url = new URL(MYSQL_URL)
    url.host = `127.0.0.1:${(this.#server.address() as net.AddressInfo).port}`
    url.pathname = '/'
    return url.toString()
  }

  /** Cuts the next query matching `pattern`; resolves once it has been cut. */
  cutNext(pattern: RegExp, when: 'before' | 'after'): Promise<void> {
    return new Promise((done) => (this.#armed = { pattern, when, done }))
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise((resolve) => this.#server.close(resolve))
  }

  #pipe(client: net.Socket, host: string, port: number): void {
    const server = net.connect(port, host)
    this.#sockets.add(client).add(server)
    const cut = () => {
      client.destroy()
      server.destroy()
    }
    for (const socket of [client, server]) {
      socket.on('error', cut)
      socket.on('close', () => {
        this.#sockets.delete(socket)
        cut()
      })
    }
    let pending = Buffer.alloc(0)
    let cutOnReply: (() => void) | null = null
    server.on('data', (chunk: Buffer) => {
      if (cutOnReply === null) return void client.write(chunk)
      cutOnReply()
      cut()
    })
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3)
        if (pending.length < 4 + length) break
        const packet = pending.subarray(0, 4 + length)
        pending = pending.subarray(4 + length)
        const armed = this.#armed
        if (armed !== null && packet[4] === COM_QUERY) {
          const sql = packet.subarray(5).toString('utf8')
          if (armed.pattern.test(sql)) {
            this.#armed = null
            if (armed.when === 'before') {
              cut()
              armed.done()
              return
            }
            cutOnReply = armed.done
          }
        }
        server.write(packet)
      }
    })
  }
}
