/**
 * Runs an async refresh when asked (an engine event) and every `intervalMs` (changes made by
 * other processes), never two at once: a request during a refresh runs one more after it.
 * A failing refresh is reported and the schedule goes on.
 */
export class Refresher {
  private running = false
  private again = false
  private stopped = false
  private readonly timer: NodeJS.Timeout
  private readonly refresh: () => Promise<void>
  private readonly onError: (error: unknown) => void

  constructor(refresh: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void) {
    this.refresh = refresh
    this.onError = onError
    this.timer = setInterval(() => this.request(), intervalMs)
  }

  request(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = true
    void this.loop()
  }

  stop(): void {
    this.stopped = true
    clearInterval(this.timer)
  }

  private async loop(): Promise<void> {
    do {
      this.again = false
      try {
        await this.refresh()
      } catch (error) {
        this.onError(error)
      }
    } while (this.again && !this.stopped)
    this.running = false
  }
}
