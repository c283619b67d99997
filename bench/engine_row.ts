/** The standard workload on the Cairn engine over `store`. */
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { C, engineRunOne, registerWorkload, runWorkload, type WorkloadResult } from './workload.ts'

/** `admission`: every run under a singleton key of a limit never reached (workload.ts). */
export async function measureEngine(store: StateStore, admission = false): Promise<WorkloadResult> {
  const engine = new Engine({ store, logger: silentLogger, concurrency: C })
  registerWorkload(engine, admission)
  await engine.startDriving()
  const result = await runWorkload(engineRunOne(engine))
  await engine.close()
  return result
}
