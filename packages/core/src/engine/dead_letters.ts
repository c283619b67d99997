/**
 * Dead letters: a run that ends `dead` or `failed` starts its dead-letter workflow as
 * `dlq:<runId>` with a DeadLetter input. The create goes in the ending's batch, before it,
 * idempotent by its id — so a crash loses neither, and a retried ending finds the letter
 * `exists`. Each op of a batch applies on its own (and a batch may be split), so a letter may
 * exist while its run's ending was refused or is not written yet: before its first step the
 * letter looks at its run, and runs only once that run ended failed or dead
 * (dead_letter_check.ts).
 *
 * Which workflow: the ending run's own `deadLetterWorkflow` option (null: none), else the
 * engine's. None for a run that is itself a dead letter (`dlq:` id) or of the dead-letter
 * workflow: a failing handler must not feed itself.
 */
import type { Codec, SerializedError } from '../contracts/codec.ts'
import { deadLetterRunId, isDeadLetterRunId } from '../util/dead_letter_id.ts'
import type { RunRecord } from '../contracts/records.ts'
import type { CreateRunOp, OpResult } from '../contracts/state_store.ts'
import type { Logger } from '../contracts/logger.ts'
import { admissionOf } from './admission_of.ts'
import type { RegisteredWorkflow, WorkflowRegistry } from './registry.ts'

/** The input of a dead-letter run. */
export interface DeadLetter {
  /** The run that ended. */
  deadRunId: string
  workflow: string
  version: string
  /** `dead`: recovered `maxRecoveryAttempts` times without moving on; `failed`: its body threw. */
  status: 'dead' | 'failed'
  /** The run's input, decoded; undefined when it could not be carried (see `inputOmitted`). */
  input: unknown
  /** Why the input is not here (undecodable, or too large beside the error), else absent. */
  inputOmitted?: string
  error: SerializedError
  /** Takeovers since it last moved on (RunInfo.recoveries). */
  recoveries: number
}

export { deadLetterRunId, isDeadLetterRunId } from '../util/dead_letter_id.ts'

export interface DeadLetterDeps {
  registry: WorkflowRegistry
  codec: Codec
  logger: Logger
  /** EngineOptions.deadLetterWorkflow. */
  fallback: string | null
}

/** The dead-letter workflow (newest registered version) for `run`, or null. */
export function deadLetterTarget(
  deps: DeadLetterDeps,
  run: Pick<RunRecord, 'id' | 'workflow' | 'version'>,
): RegisteredWorkflow | null {
  if (isDeadLetterRunId(run.id)) return null
  const own = (deps.registry.find(run.workflow, run.version) ?? deps.registry.newest(run.workflow))
    ?.options.deadLetterWorkflow
  const name = own === undefined ? deps.fallback : own
  if (name === null || name === run.workflow) return null
  const target = deps.registry.newest(name)
  if (target === undefined)
    deps.logger.error(
      { runId: run.id, deadLetterWorkflow: name },
      'cairn: the dead-letter workflow is not registered on this engine; the run ends without a dead letter',
    )
  return target ?? null
}

/**
 * The create of `run`'s dead letter, or null when it has none (or its input could not be
 * built: logged). `error`: the ending's encoded SerializedError.
 */
export function deadLetterCreate(
  deps: DeadLetterDeps,
  run: Pick<RunRecord, 'id' | 'workflow' | 'version' | 'input' | 'recoveries'>,
  status: 'dead' | 'failed',
  error: string,
  now: number,
): CreateRunOp | null {
  const target = deadLetterTarget(deps, run)
  if (target === null) return null
  const id = deadLetterRunId(run.id)
  try {
    const input = encodeLetter(deps.codec, run, status, error)
    const admission = admissionOf(target, input, deps.codec, id)
    const { priority, queue } = target.options
    return {
      type: 'createRun',
      run: {
        id,
        workflow: target.name,
        version: target.version,
        input,
        createdAt: now,
        ...(priority === undefined ? {} : { priority }),
        ...(queue === undefined ? {} : { queue }),
      },
      ...(admission === undefined ? {} : { admission }),
    }
  } catch (err) {
    deps.logger.error(
      { runId: run.id, deadLetterWorkflow: target.name, err },
      'cairn: could not build the dead letter of a run; it ends without one',
    )
    return null
  }
}

/** The DeadLetter as codec text: with the run's input when it decodes and fits, else without. */
function encodeLetter(
  codec: Codec,
  run: Pick<RunRecord, 'id' | 'workflow' | 'version' | 'input' | 'recoveries'>,
  status: 'dead' | 'failed',
  error: string,
): string {
  const base = {
    deadRunId: run.id,
    workflow: run.workflow,
    version: run.version,
    status,
    error: codec.decode(error) as SerializedError,
    recoveries: run.recoveries,
  }
  let input: unknown
  try {
    input = codec.decode(run.input)
  } catch (cause) {
    return codec.encode({ ...base, inputOmitted: `undecodable: ${String(cause)}` })
  }
  try {
    return codec.encode({ ...base, input })
  } catch (cause) {
    return codec.encode({ ...base, inputOmitted: String(cause) })
  }
}

/**
 * What the create of a letter came to: true when it made the letter (the engine looks for work
 * at once). A letter its workflow's singleton refused (a full key that rejects) is lost: said
 * at `error`, with the run it was for.
 */
export function letterCreated(
  logger: Logger,
  letter: CreateRunOp,
  result: OpResult | undefined,
): boolean {
  if (result?.status === 'full')
    logger.error(
      { runId: letter.run.id, deadLetterWorkflow: letter.run.workflow, key: result.key },
      "cairn: a dead letter was refused by its workflow's singleton key; its run has none",
    )
  return result?.status === 'applied'
}
