/**
 * What the restart storm checks in the store once its kills are over: every run completed once
 * with the right output and dense positions, and each step's recorded result comes from the
 * last execution of its body (one engine process at a time: a body that ran after its
 * checkpoint committed would be a later line). The promise the storm is about — no step starts
 * again once its successor has started — is ledger_checks.ts's lateReruns.
 */
import assert from 'node:assert/strict'
import type { Engine, RunInfo } from '@cairn/core'
import type { StepValue } from './crash_workflow.ts'
import { byStep, type Exec } from './ledger.ts'
import { STORM_POSITIONS, STORM_TOTAL, stormRunId } from './storm_workflow.ts'

/** Every run completed once, right, and recorded from the last execution of each step body. */
export async function checkStormRuns(client: Engine, runs: number, execs: Exec[]): Promise<void> {
  const steps = byStep(execs)
  for (let id = 0; id < runs; id++) {
    const runId = stormRunId(id)
    const run = (await client.getRun(runId)) as RunInfo | null
    assert.equal(
      run?.status,
      'completed',
      `${runId}: ${run?.status} ${JSON.stringify(run?.error ?? run?.parkReason)}`,
    )
    assert.equal(run?.output, STORM_TOTAL, `${runId} output`)
    const records = await client.store.loadCheckpoints(runId)
    assert.equal(records.length, STORM_POSITIONS, `${runId}: one checkpoint per position`)
    records.forEach((r, i) => assert.equal(r.seq, i, `${runId}: dense positions`))
    for (const r of records) {
      assert.equal(r.status, 'completed', `${runId}#${r.seq} ${r.kind} ${r.status}`)
      if (r.kind !== 'local' && r.kind !== 'step') continue
      const value = JSON.parse(r.output as string) as StepValue
      const last = steps.get(`${runId}/${value.i}`)?.at(-1)
      assert.equal(
        last?.exec,
        value.exec,
        `${runId} step ${value.i}: a body ran after its checkpoint`,
      )
    }
  }
}
