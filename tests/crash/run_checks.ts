/**
 * What every process-level fault test checks once the faults are over: all runs finish, each
 * with the right output and exactly one dense checkpoint per position, and every recorded step
 * result comes from an execution the effect ledger saw.
 */
import assert from 'node:assert/strict'
import type { Engine, RunInfo } from '@cairn/core'
import {
  expectedPositions,
  expectedTotal,
  type CrashInput,
  type StepValue,
} from './crash_workflow.ts'
import { byStep, type Exec } from './ledger.ts'
import { pause } from './supervisor.ts'

export async function openRuns(client: Engine): Promise<number> {
  const page = await client.listRuns({ status: ['pending', 'running', 'waiting'], limit: 1 })
  return page.runs.length
}

export async function waitUntilAllFinished(client: Engine, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const open = await client.listRuns({ status: ['pending', 'running', 'waiting'], limit: 1 })
    if (open.runs.length === 0) return
    if (Date.now() > deadline)
      throw new Error(`runs still open after ${timeoutMs} ms, e.g. ${JSON.stringify(open.runs[0])}`)
    await pause(100)
  }
}

export interface RunCheckOptions {
  ids: readonly number[]
  input: (id: number) => CrashInput
  execs: Exec[]
  /**
   * One engine process at a time: a step's recorded result is its LAST execution in the ledger
   * (no body ran after its checkpoint was committed). With engines side by side, only that the
   * recorded execution happened.
   */
  lastExecutionRecorded: boolean
}

export async function checkRuns(client: Engine, options: RunCheckOptions): Promise<void> {
  const steps = byStep(options.execs)
  const seen = new Set(options.execs.map((e) => e.exec))
  for (const id of options.ids) {
    const runId = `wf-${id}`
    const run = (await client.getRun(runId)) as RunInfo | null
    assert.equal(
      run?.status,
      'completed',
      `${runId}: ${run?.status} ${JSON.stringify(run?.error ?? run?.parkReason)}`,
    )
    assert.equal(run?.output, expectedTotal(), `${runId} output`)
    const records = await client.store.loadCheckpoints(runId)
    const expected = expectedPositions(options.input(id))
    assert.equal(records.length, expected, `${runId}: one checkpoint per position`)
    records.forEach((r, i) => assert.equal(r.seq, i, `${runId}: dense positions`))
    for (const r of records.filter((x) => x.kind === 'local')) {
      assert.equal(r.status, 'completed', `${runId}#${r.seq} ${r.status}`)
      const value = JSON.parse(r.output as string) as StepValue
      assert.ok(
        seen.has(value.exec),
        `${runId}#${r.seq}: recorded an execution the ledger never saw`,
      )
      if (!options.lastExecutionRecorded) continue
      const last = steps.get(`${runId}/${value.i}`)?.at(-1)
      assert.equal(
        last?.exec,
        value.exec,
        `${runId} step ${value.i}: a body ran after its checkpoint`,
      )
    }
  }
}
