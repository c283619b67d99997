/** Reading a server-sent-events response in tests: events and comments, as they arrive. */

export interface SseEvent {
  event: string
  data: unknown
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private readonly decoder = new TextDecoder()
  private buffer = ''
  readonly comments: string[] = []
  readonly fields: string[] = []

  constructor(response: Response) {
    if (response.body === null) throw new Error('no body')
    this.reader = response.body.getReader()
  }

  /** The next event (comments are collected, not returned); null when the stream ended. */
  async next(): Promise<SseEvent | null> {
    for (;;) {
      const item = await this.nextItem()
      if (item === null || item.event !== ':') return item
    }
  }

  /** The next event or comment (event ':'); null when the stream ended. */
  private async nextItem(): Promise<SseEvent | null> {
    for (;;) {
      const block = this.takeBlock()
      if (block !== null) {
        const item = this.parse(block)
        if (item !== null) return item
        continue
      }
      const { done, value } = await this.reader.read()
      if (done) return null
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }

  /**
   * Events until one satisfies `until` (returned last); throws if the stream ends first, or
   * after `timeoutMs` (then the stream is cancelled): a missing event fails its test with what
   * came instead, rather than hanging the suite.
   */
  async until(until: (event: SseEvent) => boolean, timeoutMs = 20_000): Promise<SseEvent[]> {
    const seen: SseEvent[] = []
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.reader.cancel().catch(() => {})
        reject(new Error(`no matching event in ${timeoutMs} ms; saw ${JSON.stringify(seen)}`))
      }, timeoutMs)
    })
    try {
      for (;;) {
        const event = await Promise.race([this.next(), expired])
        if (event === null) throw new Error(`stream ended; saw ${JSON.stringify(seen)}`)
        seen.push(event)
        if (until(event)) return seen
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /** Waits for the next comment line (e.g. the keep-alive); events on the way are dropped. */
  async comment(): Promise<string> {
    for (;;) {
      const item = await this.nextItem()
      if (item === null) throw new Error('stream ended before a comment')
      if (item.event === ':') return item.data as string
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel()
  }

  private takeBlock(): string | null {
    const end = this.buffer.indexOf('\n\n')
    if (end < 0) return null
    const block = this.buffer.slice(0, end)
    this.buffer = this.buffer.slice(end + 2)
    return block
  }

  private parse(block: string): SseEvent | null {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line)
        return { event: ':', data: line }
      }
      if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
      else this.fields.push(line)
    }
    if (data.length === 0) return null
    return { event, data: JSON.parse(data.join('\n')) }
  }
}
