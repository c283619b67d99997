/**
 * What the dashboard figures measure: API requests a console user makes, each sent to the
 * real dashboard fetch handler as an in-process `Request` with the bench's bearer token,
 * its body read to the end. A scenario is one or more requests timed together.
 */
import { BIG_RUN, LONG_RUNS, WORKFLOWS, type RunRow } from './seed_plan.ts'

export const TOKEN = 'bench-dashboard-token-0123456789'

export type Get = (path: string) => Promise<unknown>

export interface Scenario {
  name: string
  /** One timed call: request i of the scenario. */
  call(get: Get, i: number): Promise<void>
}

/** The scenarios over a seeded store; `runs` is the plan (to pick ids that exist). */
export async function scenarios(get: Get, runs: readonly RunRow[]): Promise<Scenario[]> {
  const first = (await get('/api/runs')) as { nextCursor: string }
  const failed = runs.filter((r) => r.status === 'failed')
  const pick = <T>(list: readonly T[], i: number) => list[(i * 7919) % list.length] as T
  const stepPages = Math.floor(BIG_RUN.steps / 200)
  return [
    { name: 'runs list', call: async (g) => void (await g('/api/runs')) },
    { name: 'runs status=failed', call: async (g) => void (await g('/api/runs?status=failed')) },
    {
      name: 'runs workflow=…',
      call: async (g, i) => void (await g(`/api/runs?workflow=${pick(WORKFLOWS, i)}`)),
    },
    {
      name: 'runs page 2 (cursor)',
      call: async (g) => void (await g(`/api/runs?cursor=${encodeURIComponent(first.nextCursor)}`)),
    },
    {
      name: 'runs q=<id part>',
      call: async (g, i) => void (await g(`/api/runs?q=${pick(failed, i).id.slice(-8)}`)),
    },
    { name: 'runs tag=vip (1 in 50)', call: async (g) => void (await g('/api/runs?tag=vip')) },
    { name: 'runs oldest first', call: async (g) => void (await g('/api/runs?sort=created')) },
    { name: 'runs stuck (> 5 min)', call: async (g) => void (await g('/api/runs?stuckFor=5')) },
    { name: 'facets', call: async (g) => void (await g('/api/facets')) },
    {
      name: 'run detail + steps page',
      call: async (g, i) => {
        const run = pick(failed, i)
        await g(`/api/runs/${run.id}`)
        await g(`/api/runs/${run.id}/steps?fromSeq=0&limit=200`)
      },
    },
    {
      name: '1,000-step run: detail + steps page',
      call: async (g, i) => {
        const run = pick(LONG_RUNS, i)
        await g(`/api/runs/${run.id}`)
        await g(`/api/runs/${run.id}/steps?fromSeq=0&limit=200`)
      },
    },
    {
      name: '10,000-step run: steps page (200)',
      call: async (g, i) =>
        void (await g(`/api/runs/${BIG_RUN.id}/steps?fromSeq=${(i % stepPages) * 200}&limit=200`)),
    },
  ]
}
