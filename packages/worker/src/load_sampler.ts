/**
 * What adaptive concurrency measures (adaptive_limit.ts), one period at a time:
 * - event-loop utilization (perf_hooks: the busy share of the period) — the measure of a loop
 *   kept busy by JavaScript. The delay histogram alone misses that case: measured on Node 24,
 *   with 120 ms synchronous stretches back to back it recorded no sample at all in a period;
 * - event-loop delay: the larger of the histogram's p99 (a fresh one each period) and how late
 *   the sampling timer itself fired;
 * - CPU: the process's CPU time as a share of the cores it may use — the machine's, or fewer
 *   when a cgroup CPU quota says so (a container with 2 CPUs on a 64-core host);
 * - memory: the larger of heap used of V8's heap limit and resident memory of what the process
 *   may use (its cgroup limit when it has one, else the machine's memory).
 * Node built-ins only: nothing to install, nothing native.
 */
import { readFileSync } from 'node:fs'
import { availableParallelism, totalmem } from 'node:os'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import type { LoadSample } from './adaptive_limit.ts'

export class LoadSampler {
  #delay = monitorEventLoopDelay({ resolution: 10 })
  #utilization = performance.eventLoopUtilization()
  readonly #cores = cpuBudget()
  #cpu = process.cpuUsage()
  #at = process.hrtime.bigint()

  start(): void {
    this.#delay.enable()
    this.#utilization = performance.eventLoopUtilization()
    this.#cpu = process.cpuUsage()
    this.#at = process.hrtime.bigint()
  }

  stop(): void {
    this.#delay.disable()
  }

  /**
   * The period since the last sample (or start), then a new period begins. `expectedMs`: how
   * long the period was meant to last (the sampling timer's interval).
   */
  sample(expectedMs: number): LoadSample {
    const now = process.hrtime.bigint()
    const elapsedMicros = Number(now - this.#at) / 1_000
    const used = process.cpuUsage(this.#cpu)
    const late = Math.max(0, elapsedMicros / 1_000 - expectedMs)
    const delay = this.#delay.count > 0 ? this.#delay.percentile(99) / 1e6 : 0
    const eventLoopDelayMs = Math.max(delay, late)
    const eventLoopUtilization = performance.eventLoopUtilization(this.#utilization).utilization
    this.#utilization = performance.eventLoopUtilization()
    // A fresh histogram: reset() on a live one was seen to stop it recording (Node 24).
    this.#delay.disable()
    this.#delay = monitorEventLoopDelay({ resolution: 10 })
    this.#delay.enable()
    this.#cpu = process.cpuUsage()
    this.#at = now
    const cpu = elapsedMicros > 0 ? (used.user + used.system) / (elapsedMicros * this.#cores) : 0
    return { eventLoopDelayMs, eventLoopUtilization, cpu, memory: memoryInUse() }
  }
}

function memoryInUse(): number {
  const { heapUsed, rss } = process.memoryUsage()
  const heapLimit = getHeapStatistics().heap_size_limit
  const constrained = process.constrainedMemory()
  const allowed =
    constrained > 0 && constrained < Number.MAX_SAFE_INTEGER ? constrained : totalmem()
  return Math.max(heapUsed / heapLimit, rss / allowed)
}

/**
 * The cores this process may use: the machine's, or its cgroup's quota when lower (cgroup v2
 * `cpu.max`, else v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`). At least one.
 */
export function cpuBudget(
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): number {
  const cores = Math.max(1, availableParallelism())
  const quota = cgroupQuota(read)
  return quota === null ? cores : Math.max(1, Math.min(cores, quota))
}

function cgroupQuota(read: (path: string) => string): number | null {
  const attempt = (body: () => number | null): number | null => {
    try {
      return body()
    } catch {
      return null
    }
  }
  const v2 = attempt(() => {
    const [quota, period] = read('/sys/fs/cgroup/cpu.max').trim().split(/\s+/)
    return quota === 'max' ? null : ratio(quota, period)
  })
  if (v2 !== null) return v2
  return attempt(() =>
    ratio(
      read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us').trim(),
      read('/sys/fs/cgroup/cpu/cpu.cfs_period_us').trim(),
    ),
  )
}

function ratio(quota: string | undefined, period: string | undefined): number | null {
  const q = Number(quota)
  const p = Number(period)
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : null
}
