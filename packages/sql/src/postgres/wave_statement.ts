/**
 * One wave of a batch as ONE Postgres statement. Every kind of write in the wave is a
 * data-modifying CTE fed by json_to_recordset (recordset.ts); the statement returns only the
 * exceptions: ops that did not apply, with the fence state that explains why, and the new
 * epochs of applied cancels. An all-applied wave returns no rows.
 *
 * `lk` first locks every existing run the wave fences on (FOR NO KEY UPDATE, in key order so
 * two one-wave batches cannot deadlock on each other), and every fence check reads `lk`: a
 * locking read sees the latest committed row, and the lock keeps it so until commit. A save
 * therefore cannot slip in beside a concurrent cancel or claim, and the state reported for a
 * fenced op is the state it was checked against.
 *
 * All CTEs see the snapshot the statement started with; each run appears in at most one
 * run-writing CTE per wave (wave_plan.ts), and its saves read `lk`, the state before that write,
 * which is what they would have seen in order.
 *
 * The text depends only on which kinds of write the wave holds (and whether its saves consume
 * messages, and whether it publishes a wake-up), so it is built once per shape and prepared
 * once per connection; each call only binds values. The output is four narrow columns
 * (node-postgres builds a parser per column of every result); the rare op that met a stored
 * row it must report (`exists`, `conflict`) is left to apply_batch.ts, which reads that row.
 * Besides refusals, it returns what a result must carry that the op does not say: a delivered
 * message's seq, and the `availableAt` of a suspend that found a message it had not seen.
 */
import type { SqlStatement } from '../shared/driver.ts'
import {
  CONSUME_COLUMNS,
  OP_KINDS,
  OVERWRITABLE_CHECKPOINTS,
  SOURCE_COLUMNS,
  TERMINAL_STATUSES,
  cancelAssignments,
  consumeRows,
  deliverAssignments,
  leaseAssignments,
  runIdOf,
  sourceRow,
  type OpKind,
} from '../shared/op_columns.ts'
import { CHECKPOINT_COLUMNS } from '../shared/row_mapping.ts'
import type { Tables } from '../shared/tables.ts'
import type { PlannedOp } from '../shared/wave_plan.ts'
import { recordsetJson, recordsetSql } from './recordset.ts'
import { StatementNames } from './statement_names.ts'

/** The wave's ops by kind of write; kinds without ops are left out of the statement. */
export type WaveGroups = Readonly<Record<OpKind, readonly PlannedOp[]>>

/** Publish a wake-up: the earliest availableAt of earlier waves, and the channel. */
export interface WaveNotify {
  channel: string
  earliest: number | null
}

/** What each placeholder of a wave statement binds, in order. */
type Slot = 'now' | 'locked' | OpKind | 'consumed' | 'channel' | 'earliest'

interface WaveText {
  text: string
  name: string
  slots: readonly Slot[]
}

/** Builds, caches and binds the wave statements of one store's tables. */
export class WaveStatements {
  readonly #tables: Tables
  readonly #texts = new Map<string, WaveText>()
  readonly #names = new StatementNames()

  constructor(tables: Tables) {
    this.#tables = tables
  }

  statement(groups: WaveGroups, now: number, notify: WaveNotify | null): SqlStatement {
    const present = OP_KINDS.filter((kind) => groups[kind].length > 0)
    const consumes = groups.save.some(
      ({ op }) => op.type === 'saveCheckpoint' && op.consumes !== undefined,
    )
    const key = `${present.join(',')}${consumes ? '+consume' : ''}${notify === null ? '' : '+notify'}`
    let wave = this.#texts.get(key)
    if (wave === undefined) {
      wave = this.#build(present, consumes, notify !== null)
      this.#texts.set(key, wave)
    }
    const values = wave.slots.map((slot) => bind(slot, groups, now, notify))
    return { text: wave.text, values, writes: true, name: wave.name }
  }

  #build(present: readonly OpKind[], consumes: boolean, notify: boolean): WaveText {
    const slots = new SlotList()
    const now = () => slots.once('now', 'bigint')
    const ctes: string[] = []
    const outputs: string[] = []
    if (present.some((kind) => kind !== 'create')) ctes.push(lockCte(this.#tables, slots))
    for (const kind of present) {
      const source = recordsetSql(slots.add(kind, 'json'), 't', SOURCE_COLUMNS[kind])
      ctes.push(`${SOURCE_NAMES[kind]} AS (SELECT * FROM ${source})`)
      ctes.push(WRITES[kind](this.#tables, now))
      outputs.push(EXCEPTIONS[kind])
    }
    if (consumes) ctes.push(consumeCte(this.#tables, slots.add('consumed', 'json'), now))
    if (notify) {
      ctes.push(wakeCte(present, slots.add('earliest', 'bigint')))
      outputs.push(`SELECT -1, 'n', pg_notify(${slots.add('channel', 'text')}, wk.at::text)::text,
        NULL::bigint FROM wk WHERE wk.at IS NOT NULL`)
    }
    const text = `WITH ${ctes.join(',\n')}\n${outputs.join('\nUNION ALL\n')}`
    return { text, name: this.#names.of(text), slots: slots.names }
  }
}

/** Placeholders as they are written into a statement's text, remembering what each binds. */
class SlotList {
  readonly names: Slot[] = []

  add(slot: Slot, type: string): string {
    this.names.push(slot)
    return `$${this.names.length}::${type}`
  }

  /** The same placeholder wherever the slot is used again (Postgres allows reusing $n). */
  once(slot: Slot, type: string): string {
    const at = this.names.indexOf(slot)
    return at === -1 ? this.add(slot, type) : `$${at + 1}::${type}`
  }
}

function bind(slot: Slot, groups: WaveGroups, now: number, notify: WaveNotify | null): unknown {
  switch (slot) {
    case 'now':
      return now
    case 'locked':
      return [
        ...new Set(
          [...groups.save, ...groups.lease, ...groups.cancel, ...groups.deliver].map(({ op }) =>
            runIdOf(op),
          ),
        ),
      ]
    case 'consumed':
      return recordsetJson(CONSUME_COLUMNS, consumeRows(groups.save.map(({ op }) => op)))
    case 'channel':
      return notify?.channel
    case 'earliest':
      return notify?.earliest ?? null
    default: {
      const rows = groups[slot].map(({ op, index }) => sourceRow(op, index, now))
      return recordsetJson(SOURCE_COLUMNS[slot], rows)
    }
  }
}

function lockCte(tables: Tables, slots: SlotList): string {
  return `lk AS MATERIALIZED (SELECT key, id, status, lease_epoch FROM ${tables.runs}
    WHERE id = ANY(${slots.add('locked', 'text[]')}) ORDER BY key FOR NO KEY UPDATE)`
}

const SOURCE_NAMES: Readonly<Record<OpKind, string>> = {
  create: 'cv',
  save: 'sv',
  lease: 'lv',
  cancel: 'xv',
  deliver: 'dv',
}

const CHECKPOINT_NAMES = CHECKPOINT_COLUMNS.map(([name]) => name)

const WRITES: Readonly<Record<OpKind, (tables: Tables, now: () => string) => string>> = {
  // Keys are assigned in batch order, so a batch's runs sit together in the checkpoint index.
  create: (tables) => `ci AS (INSERT INTO ${tables.runs} (id, workflow, version, status, input,
      created_at, updated_at, available_at, lease_owner, lease_epoch, turns)
    SELECT id, workflow, version, status, input, created_at, created_at, available_at, lease_owner,
      epoch, epoch FROM cv ORDER BY ord
    ON CONFLICT (id) DO NOTHING RETURNING id)`,
  save: (
    tables,
  ) => `si AS (INSERT INTO ${tables.checkpoints} AS c (run_key, ${CHECKPOINT_NAMES.join(', ')})
    SELECT lk.key, ${CHECKPOINT_NAMES.map((name) => `sv.${name}`).join(', ')}
    FROM sv JOIN lk ON lk.id = sv.run_id AND lk.lease_epoch = sv.epoch AND lk.status = 'running'
    ON CONFLICT (run_key, seq) DO UPDATE SET ${CHECKPOINT_NAMES.slice(1)
      .map((name) => `${name} = excluded.${name}`)
      .join(', ')}
    WHERE c.status IN ${OVERWRITABLE_CHECKPOINTS} RETURNING c.run_key, c.seq)`,
  lease: (
    tables,
    now,
  ) => `lu AS (UPDATE ${tables.runs} r SET ${leaseAssignments('lv', 'r', '', now())}
    FROM lv JOIN lk ON lk.id = lv.run_id
    WHERE r.key = lk.key AND lk.lease_epoch = lv.epoch AND lk.status = 'running'
    RETURNING lv.ord, CASE WHEN lv.op IN ('suspendRun', 'releaseRun') THEN r.available_at END AS wake_at,
      r.available_at IS DISTINCT FROM lv.available_at AS woken)`,
  cancel: (
    tables,
    now,
  ) => `xu AS (UPDATE ${tables.runs} r SET ${cancelAssignments('xv', 'r', '', now())}
    FROM xv JOIN lk ON lk.id = xv.run_id
    WHERE r.key = lk.key AND lk.status NOT IN ${TERMINAL_STATUSES}
    RETURNING xv.ord, r.lease_epoch)`,
  // `dd`: deliveries whose dedupe id the run already accepted (they change nothing). The
  // message table is read at the statement's snapshot: a message of the same id committed by
  // a delivery this one waited for (on lk's lock) is not seen, and the insert then fails on
  // the unique (run_key, dedupe_id), a retryable failure; the retry reports the duplicate.
  deliver: (tables, now) => `dd AS (SELECT dv.ord, m.seq FROM dv
      JOIN lk ON lk.id = dv.run_id AND lk.status NOT IN ${TERMINAL_STATUSES}
      JOIN ${tables.messages} m ON m.run_key = lk.key AND m.dedupe_id = dv.dedupe_id),
du AS (UPDATE ${tables.runs} r SET ${deliverAssignments('r', '', now())}
    FROM dv JOIN lk ON lk.id = dv.run_id
    WHERE r.key = lk.key AND lk.status NOT IN ${TERMINAL_STATUSES}
      AND NOT EXISTS (SELECT 1 FROM dd WHERE dd.ord = dv.ord)
    RETURNING dv.ord, r.key, r.inbox_seq, CASE WHEN r.status = 'waiting' THEN r.available_at END AS wake_at),
mi AS (INSERT INTO ${tables.messages} (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    SELECT du.key, du.inbox_seq, dv.kind, dv.name, dv.dedupe_id, dv.payload, ${now()}
    FROM du JOIN dv ON dv.ord = du.ord)`,
}

/**
 * Messages consumed by the wave's saves: only those whose checkpoint was written (`si`), so a
 * fenced or conflicting save consumes nothing.
 */
function consumeCte(tables: Tables, consumed: string, now: () => string): string {
  return `mc AS (UPDATE ${tables.messages} m SET consumed_at = ${now()}
    FROM ${recordsetSql(consumed, 'q', CONSUME_COLUMNS)}
    JOIN lk ON lk.id = q.run_id JOIN si ON si.run_key = lk.key AND si.seq = q.seq
    WHERE m.run_key = lk.key AND m.seq = q.message AND m.consumed_at IS NULL)`
}

/**
 * Per kind: (ord, tag, fence status, fence epoch) of each op that did not apply ('x'; a create
 * reports nothing of the run it met), and of each applied cancel ('a', with its new epoch).
 * A suspend left claimable now by a message it had not seen is 'w' with that time; a delivery
 * is 'd' with its seq, or 'u' with the seq its dedupe id was first accepted under.
 */
const EXCEPTIONS: Readonly<Record<OpKind, string>> = {
  create: `SELECT cv.ord, 'x', NULL::text, NULL::bigint FROM cv
    WHERE NOT EXISTS (SELECT 1 FROM ci WHERE ci.id = cv.id)`,
  save: `SELECT sv.ord, 'x', lk.status, lk.lease_epoch FROM sv LEFT JOIN lk ON lk.id = sv.run_id
    WHERE NOT EXISTS (SELECT 1 FROM si WHERE si.run_key = lk.key AND si.seq = sv.seq)`,
  lease: `SELECT lv.ord, 'x', lk.status, lk.lease_epoch FROM lv LEFT JOIN lk ON lk.id = lv.run_id
    WHERE NOT EXISTS (SELECT 1 FROM lu WHERE lu.ord = lv.ord)
    UNION ALL SELECT lu.ord, 'w', NULL::text, lu.wake_at FROM lu WHERE lu.woken`,
  cancel: `SELECT xv.ord, 'x', lk.status, lk.lease_epoch FROM xv LEFT JOIN lk ON lk.id = xv.run_id
    WHERE NOT EXISTS (SELECT 1 FROM xu WHERE xu.ord = xv.ord)
    UNION ALL SELECT xu.ord, 'a', NULL::text, xu.lease_epoch FROM xu`,
  deliver: `SELECT dv.ord, 'x', lk.status, lk.lease_epoch FROM dv LEFT JOIN lk ON lk.id = dv.run_id
    WHERE NOT EXISTS (SELECT 1 FROM du WHERE du.ord = dv.ord)
      AND NOT EXISTS (SELECT 1 FROM dd WHERE dd.ord = dv.ord)
    UNION ALL SELECT du.ord, 'd', NULL::text, du.inbox_seq FROM du
    UNION ALL SELECT dd.ord, 'u', NULL::text, dd.seq FROM dd`,
}

/** The earliest availableAt this batch made claimable: earlier waves' and this wave's applied ones. */
function wakeCte(present: readonly OpKind[], earliest: string): string {
  const sources = [
    present.includes('create')
      ? `SELECT cv.available_at FROM cv JOIN ci ON ci.id = cv.id WHERE cv.status = 'pending'`
      : null,
    present.includes('lease') ? 'SELECT wake_at FROM lu' : null,
    present.includes('deliver') ? 'SELECT wake_at FROM du' : null,
  ].filter((source) => source !== null)
  const applied =
    sources.length > 0 ? sources.join(' UNION ALL ') : 'SELECT NULL::bigint WHERE false'
  return `wk AS (SELECT least(${earliest}, min(w.at)) AS at FROM (${applied}) AS w(at))`
}
