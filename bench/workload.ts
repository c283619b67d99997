/**
 * The standard workload (keep it exactly): W=1000 workflows × S=10 sequential local steps,
 * each returning a small JSON value, at most C=50 in flight; then 200 sequential one-step
 * workflows for latency and 30 sequential ten-step workflows for the per-step marginal.
 */
import type { Engine } from '@cairn/core'

export const W = 1000
export const S = 10
export const C = 50
export const LATENCY_RUNS = 200
export const MARGINAL_RUNS = 30
/** Unmeasured runs before the measurements (JIT warm-up). */
export const WARM_UP_RUNS = 2000

/** Starts one workflow of `steps` steps and resolves once it has completed. */
export type RunOne = (id: number, steps: number) => Promise<void>

/**
 * Singleton admission on every run, with a limit nothing reaches: 100 keys (`id % 100`), 1,000
 * slots each — the bench measures what admission costs, not queueing (issue 15's overhead row).
 */
export const ADMISSION_OVERHEAD = {
  key: (input: { id: number }) => `k${Math.abs(input.id) % 100}`,
  limit: 1000,
}

export function registerWorkload(engine: Engine, admission = false): void {
  engine.register(
    'bench-steps',
    1,
    async (ctx, input: { id: number; steps: number }) => {
      let acc = 0
      for (let i = 0; i < input.steps; i++) {
        const r = await ctx.localStep(`step-${i}`, () => ({ i, ok: true, v: acc + i }))
        acc = r.v
      }
      return acc
    },
    admission ? { singleton: ADMISSION_OVERHEAD } : {},
  )
}

export interface WorkloadResult {
  wall_s: number
  wf_per_s: number
  steps_per_s: number
  lat1_p50_ms: number
  lat1_p99_ms: number
  per_step_marginal_ms: number
}

// The throughput phase is short (well under a second on memory), so on a shared machine one
// sample is mostly noise: it runs this many times and the median counts.
export const THROUGHPUT_REPEATS = 3

// Engine-agnostic (a RunOne per engine) so other engines run exactly the same measurement.
export async function runWorkload(
  runOne: RunOne,
  warmUpRuns = WARM_UP_RUNS,
): Promise<WorkloadResult> {
  await warmUp(runOne, warmUpRuns)
  const walls: number[] = []
  for (let i = 0; i < THROUGHPUT_REPEATS; i++) walls.push(await throughput(runOne))
  const wall = percentile(walls, 50)
  const lat1 = await sequentialLatencies(runOne, LATENCY_RUNS, 1)
  const lat10 = await sequentialLatencies(runOne, MARGINAL_RUNS, S)
  return {
    wall_s: round(wall, 3),
    wf_per_s: round(W / wall, 0),
    steps_per_s: round((W * S) / wall, 0),
    lat1_p50_ms: round(percentile(lat1, 50), 3),
    lat1_p99_ms: round(percentile(lat1, 99), 3),
    per_step_marginal_ms: round((percentile(lat10, 50) - percentile(lat1, 50)) / (S - 1), 3),
  }
}

/** Cairn's RunOne: start the registered workload workflow, wait for its outcome. */
export function engineRunOne(engine: Engine): RunOne {
  return async (id, steps) => {
    const { runId } = await engine.start('bench-steps', { id, steps })
    const outcome = await engine.waitForRun(runId)
    if (outcome.status !== 'completed') throw new Error(`bench run ${runId} ${outcome.status}`)
  }
}

// Not measured: lets the JIT compile the hot paths so the short throughput phase measures
// steady state, not compilation.
export async function warmUp(runOne: RunOne, runs: number): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < runs) await runOne(-1 - next++, S)
  }
  await Promise.all(Array.from({ length: C }, lane))
}

export async function throughput(runOne: RunOne): Promise<number> {
  let next = 0
  const lane = async () => {
    while (next < W) await runOne(next++, S)
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: C }, lane))
  return (performance.now() - started) / 1000
}

async function sequentialLatencies(
  runOne: RunOne,
  count: number,
  steps: number,
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await runOne(100_000 + i, steps)
    out.push(performance.now() - t0)
  }
  return out
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
