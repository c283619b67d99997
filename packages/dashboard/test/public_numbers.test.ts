/**
 * Every number `createDashboard`, `createMetrics` and `serveDashboard` take, fed what a careless config sends (NaN, ±Infinity, -1, 0,
 * fractions, 2^31, 2^53, strings, objects): refused with E_INVALID_ARGUMENT when the dashboard
 * is made, or taken with its documented meaning — never clamped, rounded, or handed to a timer
 * (a NaN stream period would be a 1 ms timer per open stream).
 */
import { test } from 'node:test'
import { MemoryStore, Engine, silentLogger } from '@cairn/core'
import { MAX_TIME_MS, MAX_TIMER_MS } from '@cairn/core/store-kit'
import { createDashboard, serveDashboard, type DashboardOptions } from '@cairn/dashboard'
import { createMetrics, type MetricsOptions } from '@cairn/dashboard/metrics'
import { assertEveryProbe, int, type NumberEntry } from '../../core/test/number_probes.ts'
import { SECRET } from './helpers.ts'

const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })

/** Makes and closes a dashboard with `options`: resolves when they were taken. */
async function make(options: Partial<DashboardOptions>): Promise<void> {
  const dashboard = createDashboard({ engine, secret: SECRET, development: true, ...options })
  await dashboard.close()
}

/** Makes and closes metrics with `options` on a registry of their own. */
async function metrics(options: MetricsOptions): Promise<void> {
  createMetrics(engine, options).close()
}

const ENTRIES: NumberEntry[] = [
  ...(['maxWorkflows', 'maxSteps', 'maxSchedules'] as const).map((name) => ({
    name: `createMetrics({ ${name} })`,
    accepts: (v: unknown) => int(v, 0, 1_000_000),
    call: (v: unknown) => metrics({ [name]: v as number }),
  })),
  {
    name: 'createMetrics({ backlogCacheMs })',
    accepts: (v) => int(v, 0, MAX_TIME_MS),
    call: (v) => metrics({ backlogCacheMs: v as number }),
  },
  {
    name: 'createMetrics({ backlogTimeoutMs })',
    accepts: (v) => int(v, 1, MAX_TIMER_MS),
    call: (v) => metrics({ backlogTimeoutMs: v as number }),
  },
  {
    name: 'serveDashboard({ port })',
    // The probes hold no port in 1..65535 (one might be taken here): 0 asks for a free one.
    accepts: (v) => int(v, 0, 65_535),
    call: async (v) => {
      const dashboard = createDashboard({ engine, secret: SECRET, development: true })
      try {
        const served = await serveDashboard(dashboard, { port: v as number })
        await served.close()
      } finally {
        await dashboard.close()
      }
    },
  },
  {
    name: 'createDashboard({ bulkLimit })',
    accepts: (v) => int(v, 1, 10_000),
    call: (v) => make({ bulkLimit: v as number }),
  },
  {
    name: 'createDashboard({ sessionTtlMs })',
    accepts: (v) => int(v, 1, MAX_TIME_MS / 2),
    call: (v) => make({ sessionTtlMs: v as number }),
  },
  ...(['keepAliveMs', 'runPollMs', 'listPollMs'] as const).map((name) => ({
    name: `createDashboard({ stream: { ${name} } })`,
    accepts: (v: unknown) => int(v, 1, MAX_TIMER_MS),
    call: (v: unknown) => make({ stream: { [name]: v as number } }),
  })),
]

for (const entry of ENTRIES) {
  void test(`${entry.name}: bad numbers are refused, valid ones taken`, () =>
    assertEveryProbe(entry))
}

void test('createDashboard({ stream }): an object of periods, or refused', () =>
  assertEveryProbe({
    name: 'createDashboard({ stream })',
    accepts: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
    call: (v) => make({ stream: v as never }),
  }))
