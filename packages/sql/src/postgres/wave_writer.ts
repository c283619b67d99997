/**
 * The Postgres WaveWriter: a wave is one statement (wave_statement.ts), atomic on its own, so
 * a one-wave batch needs no BEGIN/COMMIT around it. Rows come back only for exceptions; every
 * op without one applied.
 */
import type { RunStatus, StoreOp } from '@cairn/core/contracts'
import type { SqlSession } from '../shared/driver.ts'
import { toSafeInteger } from '../shared/integers.ts'
import { kindOf, noticeOf, type OpKind } from '../shared/op_columns.ts'
import type { Tables } from '../shared/tables.ts'
import type { PlannedOp, Wave } from '../shared/wave_plan.ts'
import type {
  EndKeys,
  Observation,
  WakeRequest,
  WaveGuards,
  WaveWriter,
} from '../shared/wave_writer.ts'
import { WaveStatements, type WaveGroups } from './wave_statement.ts'

export class PostgresWaveWriter implements WaveWriter {
  readonly selfContained = true
  readonly guardsEndKeys = true
  readonly admitsInWave = true
  readonly #statements: WaveStatements
  readonly #channel: string

  /** `channel`: where wake-ups are published (see wake_channel.ts). */
  constructor(tables: Tables, channel: string) {
    this.#statements = new WaveStatements(tables)
    this.#channel = channel
  }

  async write(
    session: SqlSession,
    wave: Wave,
    now: number,
    wake: WakeRequest | null,
    guards: WaveGuards = {},
  ): Promise<Observation[]> {
    const { endKeys, admission } = guards
    const notify = wake !== null && (wake.earliest !== null || wave.some(({ op }) => wakes(op)))
    const statement = this.#statements.statement(
      groupByKind(wave),
      now,
      notify ? { channel: this.#channel, earliest: wake.earliest } : null,
      endKeys?.keys ?? [],
      admission?.keys ?? [],
    )
    const { rows } = await session.query(statement)
    if (endKeys !== undefined) unsettledKeys(endKeys, rows)
    if (admission !== undefined && rows.some((row) => row[1] === 'g')) admission.declined = true
    return observe(wave, rows)
  }
}

function groupByKind(wave: Wave): WaveGroups {
  const groups: Record<OpKind, PlannedOp[]> = {
    create: [],
    save: [],
    lease: [],
    cancel: [],
    deliver: [],
  }
  for (const planned of wave) groups[kindOf(planned.op)].push(planned)
  return groups
}

/**
 * May make a run claimable by any engine if it applied. A suspend without a timer may too: a
 * message it had not seen leaves the run claimable now; so may a finish or cancel whose
 * notice wakes the waiting parent. The statement publishes only what its writes did make
 * claimable (nothing, for a suspend that waits for a message, or a parent still running).
 */
function wakes(op: StoreOp): boolean {
  if (op.type === 'createRun') return op.claim === undefined
  if (noticeOf(op) !== null) return true
  return op.type === 'suspendRun' || op.type === 'releaseRun' || op.type === 'deliverMessage'
}

/** The end keys the statement flagged ('k' rows: the key's index in `endKeys.keys`). */
function unsettledKeys(endKeys: EndKeys, rows: readonly unknown[][]): void {
  for (const row of rows) {
    if (row[1] !== 'k') continue
    const key = endKeys.keys[toSafeInteger(row[0], 'end key')]
    if (key !== undefined) endKeys.unsettled.push(key)
  }
}

/** Rows that are not an op's exception: a wake-up, an unsettled end key, a declined admission. */
const NOT_OBSERVATIONS: ReadonlySet<unknown> = new Set(['n', 'k', 'g'])

/** Observations from the exception rows (wave_statement.ts); an op without one applied. */
function observe(wave: Wave, rows: readonly unknown[][]): Observation[] {
  const byOrd = new Map<number, readonly unknown[]>()
  for (const row of rows) if (!NOT_OBSERVATIONS.has(row[1])) byOrd.set(row[0] as number, row)
  return wave.map(({ index }) => {
    const row = byOrd.get(index)
    if (row === undefined) return { applied: true, epoch: null }
    const value = (column: string) => (row[3] === null ? null : toSafeInteger(row[3], column))
    switch (row[1]) {
      case 'a':
        return { applied: true, epoch: value('lease_epoch') }
      case 'w':
        return { applied: true, epoch: null, availableAt: value('available_at') }
      case 'd':
      case 'u':
        return delivered(value('seq'), row[1] === 'u')
      default: {
        const status = row[2] as RunStatus | null
        const epoch = value('lease_epoch')
        const fence = status === null || epoch === null ? null : { status, epoch }
        return { applied: false, fence, run: null, checkpoint: null }
      }
    }
  })
}

function delivered(seq: number | null, duplicate: boolean): Observation {
  return seq === null
    ? { applied: true, epoch: null }
    : { applied: true, epoch: null, delivered: { seq, duplicate } }
}
