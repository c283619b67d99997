/** Percentiles of repeated calls: a few unmeasured warm-up calls, then `samples` timed ones. */
export interface Latency {
  p50_ms: number
  p95_ms: number
}

export async function measureLatency(
  call: (i: number) => Promise<void>,
  options: { warmup: number; samples: number },
): Promise<Latency> {
  for (let i = 0; i < options.warmup; i++) await call(i)
  const times: number[] = []
  for (let i = 0; i < options.samples; i++) {
    const start = performance.now()
    await call(i)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95) }
}

function percentile(sorted: readonly number[], q: number): number {
  const at = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)
  return Math.round((sorted[at] as number) * 100) / 100
}
