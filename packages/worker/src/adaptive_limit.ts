/**
 * Adaptive concurrency (`concurrency: 'adaptive'`): how many tasks a worker takes at once, moved
 * between bounds by what the process can bear. Each sample period the limit
 *
 * - falls (×0.7, at least by one, never below `min`) when any pressure signal is over its
 *   threshold: event-loop utilization (JavaScript work keeping the loop busy), event-loop delay
 *   (long synchronous stretches: latency for everything else), CPU (the process's share of
 *   the machine's cores: native and thread-pool work the loop does not see), memory (heap used
 *   of the heap limit, or resident memory of what the process may use);
 * - rises (by a quarter, at least one, never above `max`) when there is no pressure and the
 *   worker was saturated — it ran as many tasks as its limit allowed, so more work waits;
 * - otherwise stays: an idle worker learns nothing about its capacity.
 *
 * Multiplicative decrease, proportional increase: quick to back off, steady to grow back. Pure:
 * the samples come in (load_sampler.ts), so the rule is tested with any numbers.
 */
import { InvalidArgumentError } from '@cairn/core/errors'

export interface AdaptiveConcurrency {
  mode: 'adaptive'
  /** Fewest tasks taken at once, and where it starts. Default 1. */
  min?: number
  /** Most tasks taken at once. Default 64. */
  max?: number
  /** Event-loop delay (p99 over a sample period, ms) above which it backs off. Default 100. */
  maxEventLoopDelayMs?: number
  /** Event-loop utilization (busy share of a sample period, 0..1] above which it backs off. Default 0.95. */
  maxEventLoopUtilization?: number
  /** The process's CPU, as a fraction of all the machine's cores (0..1], above which it backs off. Default 0.9. */
  maxCpu?: number
  /** Memory in use, as a fraction (0..1] of what the process may use, above which it backs off. Default 0.85. */
  maxMemory?: number
  /** How often it samples and adjusts (ms). Default 1 000. */
  sampleEveryMs?: number
}

/** One sample period's measures (load_sampler.ts). */
export interface LoadSample {
  eventLoopDelayMs: number
  eventLoopUtilization: number
  cpu: number
  memory: number
}

export type AdaptiveSettings = Required<AdaptiveConcurrency>

const DEFAULTS: Omit<AdaptiveSettings, 'mode'> = {
  min: 1,
  max: 64,
  maxEventLoopDelayMs: 100,
  maxEventLoopUtilization: 0.95,
  maxCpu: 0.9,
  maxMemory: 0.85,
  sampleEveryMs: 1_000,
}

const KEYS = new Set(['mode', ...Object.keys(DEFAULTS)])

/** The settings of `concurrency: 'adaptive'` or `{ mode: 'adaptive', … }`, checked. */
export function adaptiveSettings(given: 'adaptive' | AdaptiveConcurrency): AdaptiveSettings {
  const options: AdaptiveConcurrency = given === 'adaptive' ? { mode: 'adaptive' } : given
  if (options.mode !== 'adaptive' || Array.isArray(options))
    throw new InvalidArgumentError(
      `concurrency must be a number, 'adaptive' or { mode: 'adaptive', … }, got ${JSON.stringify(given)}`,
    )
  for (const key of Object.keys(options))
    if (!KEYS.has(key))
      throw new InvalidArgumentError(`concurrency: unknown option "${key}" of adaptive concurrency`)
  const settings: AdaptiveSettings = {
    mode: 'adaptive',
    min: bounded(options.min, DEFAULTS.min, 'min', 1, 10_000, true),
    max: bounded(options.max, DEFAULTS.max, 'max', 1, 10_000, true),
    maxEventLoopDelayMs: bounded(
      options.maxEventLoopDelayMs,
      DEFAULTS.maxEventLoopDelayMs,
      'maxEventLoopDelayMs',
      1,
      60_000,
      false,
    ),
    maxEventLoopUtilization: fraction(
      options.maxEventLoopUtilization,
      DEFAULTS.maxEventLoopUtilization,
      'maxEventLoopUtilization',
    ),
    maxCpu: fraction(options.maxCpu, DEFAULTS.maxCpu, 'maxCpu'),
    maxMemory: fraction(options.maxMemory, DEFAULTS.maxMemory, 'maxMemory'),
    sampleEveryMs: bounded(
      options.sampleEveryMs,
      DEFAULTS.sampleEveryMs,
      'sampleEveryMs',
      50,
      60_000,
      true,
    ),
  }
  if (settings.min > settings.max)
    throw new InvalidArgumentError(
      `concurrency: min (${settings.min}) must not be above max (${settings.max})`,
    )
  return settings
}

export class AdaptiveLimit {
  readonly settings: AdaptiveSettings
  #limit: number

  constructor(settings: AdaptiveSettings) {
    this.settings = settings
    this.#limit = settings.min
  }

  get limit(): number {
    return this.#limit
  }

  /** The next limit after a period with `sample`, in which at most `peak` tasks ran at once. */
  adjust(sample: LoadSample, peak: number): number {
    const { min, max } = this.settings
    const limit = this.#limit
    if (this.pressured(sample))
      this.#limit = Math.max(min, Math.min(limit - 1, Math.floor(limit * 0.7)))
    else if (peak >= limit) this.#limit = Math.min(max, limit + Math.max(1, Math.floor(limit / 4)))
    return this.#limit
  }

  /** Whether any measure is over its threshold (a measure that is not a number counts as none). */
  pressured(sample: LoadSample): boolean {
    const s = this.settings
    return (
      over(sample.eventLoopDelayMs, s.maxEventLoopDelayMs) ||
      over(sample.eventLoopUtilization, s.maxEventLoopUtilization) ||
      over(sample.cpu, s.maxCpu) ||
      over(sample.memory, s.maxMemory)
    )
  }
}

function over(value: number, threshold: number): boolean {
  return Number.isFinite(value) && value > threshold
}

function bounded(
  value: number | undefined,
  fallback: number,
  name: string,
  min: number,
  max: number,
  integer: boolean,
): number {
  if (value === undefined) return fallback
  const ok =
    typeof value === 'number' && (integer ? Number.isInteger(value) : Number.isFinite(value))
  if (!ok || value < min || value > max)
    throw new InvalidArgumentError(
      `concurrency: ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(value)}`,
    )
  return value
}

function fraction(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1)
    throw new InvalidArgumentError(
      `concurrency: ${name} must be a fraction in (0, 1], got ${String(value)}`,
    )
  return value
}
