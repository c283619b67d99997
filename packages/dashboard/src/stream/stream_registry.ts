/**
 * The live streams of one dashboard: so `dashboard.close()` can end them all, and so no caller
 * can hold more than its share. Each open stream costs a timer, a poll and work on every
 * engine event; without a cap, a client opening hundreds of them slows the engine it watches.
 * A principal (a token, a session, the anonymous caller of an open dashboard) may hold
 * MAX_STREAMS_PER_PRINCIPAL at once, the dashboard MAX_STREAMS in all; past either, opening
 * one more is 429 `E_TOO_MANY_STREAMS` (the console's tabs hold one or two each).
 */
import { HttpError } from '../http/http_error.ts'

export const MAX_STREAMS_PER_PRINCIPAL = 16
export const MAX_STREAMS = 256

/** One stream's place in the registry: attach its ending, release it when it is over. */
export interface StreamLease {
  attach(end: () => void): void
  release(): void
}

export class StreamRegistry {
  private readonly enders = new Set<() => void>()
  private readonly perPrincipal = new Map<string, number>()
  private held = 0

  /** A place for one more stream of `principal`, or 429 when it or the dashboard is full. */
  lease(principal: string): StreamLease {
    const mine = this.perPrincipal.get(principal) ?? 0
    if (mine >= MAX_STREAMS_PER_PRINCIPAL || this.held >= MAX_STREAMS) throw tooManyStreams()
    this.perPrincipal.set(principal, mine + 1)
    this.held += 1
    let end: (() => void) | null = null
    let released = false
    return {
      attach: (ender) => {
        end = ender
        this.enders.add(ender)
      },
      release: () => {
        if (released) return
        released = true
        if (end !== null) this.enders.delete(end)
        this.held -= 1
        const left = (this.perPrincipal.get(principal) ?? 1) - 1
        if (left === 0) this.perPrincipal.delete(principal)
        else this.perPrincipal.set(principal, left)
      },
    }
  }

  closeAll(): void {
    for (const end of [...this.enders]) end()
    this.enders.clear()
  }

  get size(): number {
    return this.held
  }
}

function tooManyStreams(): HttpError {
  return new HttpError(
    429,
    'E_TOO_MANY_STREAMS',
    `too many live streams open (at most ${MAX_STREAMS_PER_PRINCIPAL} per caller, ${MAX_STREAMS} in all): close some`,
  )
}
