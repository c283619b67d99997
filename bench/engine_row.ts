/** The standard workload on the Cairn engine over `store`. */
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { C, engineRunOne, registerWorkload, runWorkload, type WorkloadResult } from './workload.ts'

export async function measureEngine(store: StateStore): Promise<WorkloadResult> {
  const engine = new Engine({ store, logger: silentLogger, concurrency: C })
  registerWorkload(engine)
  await engine.startDriving()
  const result = await runWorkload(engineRunOne(engine))
  await engine.close()
  return result
}
