/**
 * What every process-level fault test checks once the faults are over: all runs finish, each
 * with the right output and exactly one dense checkpoint per position, and every recorded step
 * result comes from an execution the effect ledger saw.
 */
import assert from 'node:assert/strict'
import type { Engine, RunInfo } from '@cairn/core'
import {
  CHILD_STEPS,
  childResult,
  expectedPositions,
  expectedTotal,
  type CrashInput,
  type StepValue,
} from './crash_workflow.ts'
import { byStep, type Exec } from './ledger.ts'
import { pause } from './supervisor.ts'

export async function openRuns(client: Engine): Promise<number> {
  const page = await client.listRuns({
    status: ['queued', 'pending', 'running', 'waiting'],
    limit: 1,
  })
  return page.runs.length
}

export async function waitUntilAllFinished(client: Engine, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const open = await client.listRuns({
      status: ['queued', 'pending', 'running', 'waiting'],
      limit: 1,
    })
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
    await checkChildren(client, runId, options.input(id).children ?? 0)
    const children = await client.listRuns({ parentRunId: runId, limit: 100 })
    const childRecords = await Promise.all(
      children.runs.map((child) => client.store.loadCheckpoints(child.id)),
    )
    for (const r of [...records, ...childRecords.flat()].filter((x) => x.kind === 'local')) {
      assert.equal(r.status, 'completed', `${runId}#${r.seq} ${r.status}`)
      const value = JSON.parse(r.output as string) as StepValue
      assert.ok(
        seen.has(value.exec),
        `${runId}#${r.seq}: recorded an execution the ledger never saw`,
      )
      if (!options.lastExecutionRecorded) continue
      const last = steps.get(`${r.runId}/${value.i}`)?.at(-1)
      assert.equal(
        last?.exec,
        value.exec,
        `${r.runId} step ${value.i}: a body ran after its checkpoint`,
      )
    }
  }
}

/**
 * Every child ran to completion once, and its result reached its parent once: one recorded
 * child position per child, holding that child's output, and no child outcome left unconsumed
 * in the parent's inbox (a second delivery would sit there: its dedupe id is the child's).
 */
async function checkChildren(client: Engine, runId: string, count: number): Promise<void> {
  const children = (await client.listRuns({ parentRunId: runId, limit: 100 })).runs
  assert.equal(children.length, count, `${runId}: children started once each`)
  const records = await client.store.loadCheckpoints(runId)
  const joined = records.filter((r) => r.kind === 'child')
  assert.equal(joined.length, count, `${runId}: one child position per child`)
  for (const [k, position] of joined.entries()) {
    const child = await client.getRun(`${runId}/${position.seq}`)
    assert.equal(child?.status, 'completed', `${runId}: child at #${position.seq}`)
    assert.equal(child?.output, childResult(k), `${runId}: child ${k} output`)
    assert.equal(position.status, 'completed', `${runId}#${position.seq}`)
    assert.equal(
      JSON.parse(position.output as string),
      childResult(k),
      `${runId}: child ${k} result`,
    )
    const steps = await client.store.loadCheckpoints(child.id)
    assert.equal(steps.length, CHILD_STEPS, `${child.id}: one checkpoint per step`)
  }
  const leftover = await client.store.loadInbox(runId)
  assert.deepEqual(leftover, [], `${runId}: no message left over (no outcome delivered twice)`)
}
