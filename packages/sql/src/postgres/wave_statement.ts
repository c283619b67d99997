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
 * run-writing CTE per wave (wave_plan.ts; a notice's target counts as written, by `nu`), and
 * its saves read `lk`, the state before that write, which is what they would have seen in
 * order.
 *
 * The text depends only on which kinds of write the wave holds (and whether its saves consume
 * messages, whether its finishes and cancels carry notices, and whether it publishes a
 * wake-up), so it is built once per shape and prepared once per connection; each call only
 * binds values. The output is four narrow columns (node-postgres builds a parser per column
 * of every result); the rare op that met a stored row it must report (`exists`, `conflict`)
 * is left to apply_batch.ts, which reads that row.
 * Besides refusals, it returns what a result must carry that the op does not say: a delivered
 * message's seq, and the `availableAt` of a suspend that found a message it had not seen.
 */
import type { SqlStatement } from '../shared/driver.ts'
import {
  CHECKPOINT_WRITABLE,
  CONSUME_COLUMNS,
  OP_KINDS,
  OVERWRITABLE_CHECKPOINTS,
  SOURCE_COLUMNS,
  TERMINAL_STATUSES,
  cancelAssignments,
  consumeRows,
  deliverAssignments,
  leaseAssignments,
  messageRow,
  noticeOf,
  runIdOf,
  sourceRow,
  type OpKind,
} from '../shared/op_columns.ts'
import { CHECKPOINT_COLUMNS } from '../shared/row_mapping.ts'
import type { Tables } from '../shared/tables.ts'
import type { PlannedOp } from '../shared/wave_plan.ts'
import { ADMITTED_STATUSES, type Key } from '../shared/admission_statements.ts'
import type { AdmitKey } from '../shared/wave_writer.ts'
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
type Slot =
  'now' | 'locked' | OpKind | 'consumed' | 'notices' | 'channel' | 'earliest' | 'ends' | 'admits'

const ADMIT_KEY_COLUMNS = [
  ['scope', 'text'],
  ['admission_key', 'text'],
  ['lim', 'bigint'],
  ['n', 'bigint'],
] as const

/** The singleton keys the wave's ends name, as bound: their index in the list, then the key. */
const END_KEY_COLUMNS = [
  ['i', 'int'],
  ['scope', 'text'],
  ['admission_key', 'text'],
] as const

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

  /** `endKeys`: the keys the wave's ends name, in lock order (EndKeys in wave_writer.ts). */
  statement(
    groups: WaveGroups,
    now: number,
    notify: WaveNotify | null,
    endKeys: readonly Key[] = [],
    admitKeys: readonly AdmitKey[] = [],
  ): SqlStatement {
    const present = OP_KINDS.filter((kind) => groups[kind].length > 0)
    const consumes = groups.save.some(
      ({ op }) => op.type === 'saveCheckpoint' && op.consumes !== undefined,
    )
    const notices = noticeRows(groups)
    const noticing = notices.length > 0
    const ends = endKeys.length > 0
    const admits = admitKeys.length > 0
    const key = `${present.join(',')}${consumes ? '+consume' : ''}${noticing ? '+notices' : ''}${notify === null ? '' : '+notify'}${ends ? '+ends' : ''}${admits ? '+admits' : ''}`
    let wave = this.#texts.get(key)
    if (wave === undefined) {
      const shape = { consumes, notices: noticing, notify: notify !== null, ends, admits }
      wave = this.#build(present, shape)
      this.#texts.set(key, wave)
    }
    const binding = { groups, now, notify, notices, endKeys, admitKeys }
    const values = wave.slots.map((slot) => bind(slot, binding))
    return { text: wave.text, values, writes: true, name: wave.name }
  }

  #build(present: readonly OpKind[], shape: WaveShape): WaveText {
    const { consumes, notices, notify, ends, admits } = shape
    const slots = new SlotList()
    const now = () => slots.once('now', 'bigint')
    const ctes: string[] = []
    const outputs: string[] = []
    if (ends) {
      ctes.push(endKeysCte(this.#tables, slots.add('ends', 'json')))
      outputs.push(unsettledOutput(this.#tables))
    }
    if (admits) ctes.push(admitCtes(this.#tables, slots.add('admits', 'json')))
    if (admits) outputs.push(`SELECT -1, 'g', NULL::text, NULL::bigint FROM ag WHERE NOT ag.ok`)
    const keysFirst = ends ? 'ek' : admits ? 'al' : null
    if (present.some((kind) => kind !== 'create'))
      ctes.push(lockCte(this.#tables, slots, keysFirst))
    // Admitting, every write comes from a source gated on `ag`: all of the wave, or nothing.
    const gate = admits ? ' WHERE (SELECT ok FROM ag)' : ''
    for (const kind of present) {
      const source = recordsetSql(slots.add(kind, 'json'), 't', SOURCE_COLUMNS[kind])
      ctes.push(`${SOURCE_NAMES[kind]} AS (SELECT * FROM ${source}${gate})`)
      ctes.push(WRITES[kind](this.#tables, now))
      outputs.push(EXCEPTIONS[kind])
    }
    if (consumes) ctes.push(consumeCte(this.#tables, slots.add('consumed', 'json'), now))
    if (notices) ctes.push(noticeCtes(this.#tables, present, slots.add('notices', 'json'), now))
    if (notify) {
      ctes.push(wakeCte(present, notices, slots.add('earliest', 'bigint')))
      outputs.push(`SELECT -1, 'n', pg_notify(${slots.add('channel', 'text')}, wk.at::text)::text,
        NULL::bigint FROM wk WHERE wk.at IS NOT NULL`)
    }
    const text = `WITH ${ctes.join(',\n')}\n${outputs.join('\nUNION ALL\n')}`
    return { text, name: this.#names.of(text), slots: slots.names }
  }
}

/** What, besides its kinds of write, shapes a wave's text. */
interface WaveShape {
  /** Its saves consume messages. */
  consumes: boolean
  /** Its finishes or cancels carry notices. */
  notices: boolean
  /** It publishes a wake-up. */
  notify: boolean
  /** Its ends name singleton keys (guarded: endKeysCte). */
  ends: boolean
  /** Its creates ask for admission (admitCtes). */
  admits: boolean
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

interface Binding {
  groups: WaveGroups
  now: number
  notify: WaveNotify | null
  /** noticeRows(groups) */
  notices: readonly unknown[][]
  endKeys: readonly Key[]
  admitKeys: readonly AdmitKey[]
}

function bind(slot: Slot, binding: Binding): unknown {
  const { groups, now, notify, notices, endKeys, admitKeys } = binding
  switch (slot) {
    case 'admits':
      return recordsetJson(
        ADMIT_KEY_COLUMNS,
        admitKeys.map((k) => [k.scope, k.key, k.limit, k.creates]),
      )
    case 'ends':
      return recordsetJson(
        END_KEY_COLUMNS,
        endKeys.map((k, i) => [i, k.scope, k.key]),
      )
    case 'now':
      return now
    case 'locked':
      return [
        ...new Set([
          ...[...groups.save, ...groups.lease, ...groups.cancel, ...groups.deliver].map(({ op }) =>
            runIdOf(op),
          ),
          ...notices.map((row) => row[1] as string),
        ]),
      ]
    case 'consumed':
      return recordsetJson(CONSUME_COLUMNS, consumeRows(groups.save.map(({ op }) => op)))
    case 'notices':
      return recordsetJson(SOURCE_COLUMNS.deliver, notices)
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

/**
 * `keysFirst`: the wave's key locks (the end keys `ek`, or the admitted creates' keys `al`)
 * are taken before any run row — keys before runs, the order of every admission writer — by
 * making the run lock's filter read them (an init plan, run once before the first run row is
 * locked).
 */
function lockCte(tables: Tables, slots: SlotList, keysFirst: 'ek' | 'al' | null): string {
  const after = keysFirst === null ? '' : ` AND (SELECT count(*) FROM ${keysFirst}) >= 0`
  return `lk AS MATERIALIZED (SELECT key, id, status, lease_epoch FROM ${tables.runs}
    WHERE id = ANY(${slots.add('locked', 'text[]')})${after} ORDER BY key FOR NO KEY UPDATE)`
}

/**
 * The keys the wave's ends name, FOR SHARE (admission_settle.ts says why): a key's admitter
 * (FOR NO KEY UPDATE, then its count) either waits for this statement's commit and then counts
 * its ends, or committed first — and then, if it queued a run, it raised the key's `next_seq`,
 * which the lock returns (the latest committed row) while a plain read of the same row sees
 * this statement's snapshot.
 */
function endKeysCte(tables: Tables, ends: string): string {
  return `ek AS MATERIALIZED (SELECT e.i, k.scope, k.admission_key, k.next_seq
    FROM ${tables.admissionKeys} k JOIN ${recordsetSql(ends, 'e', END_KEY_COLUMNS)}
      ON k.scope = e.scope AND k.admission_key = e.admission_key
    ORDER BY k.scope COLLATE "C", k.admission_key COLLATE "C" FOR SHARE OF k)`
}

/**
 * ('k' rows, `ord` the key's index) The end keys that may have a waiter once this statement
 * commits: a run queued as of its snapshot, or a queue number raised after it.
 */
function unsettledOutput(tables: Tables): string {
  return `SELECT ek.i, 'k', NULL::text, NULL::bigint FROM ek
    WHERE ek.next_seq IS DISTINCT FROM (SELECT s.next_seq FROM ${tables.admissionKeys} s
        WHERE s.scope = ek.scope AND s.admission_key = ek.admission_key)
      OR EXISTS (SELECT 1 FROM ${tables.runs} r WHERE r.admission_scope = ek.scope
        AND r.admission_key = ek.admission_key AND r.status = 'queued')`
}

const SOURCE_NAMES: Readonly<Record<OpKind, string>> = {
  create: 'cv',
  save: 'sv',
  lease: 'lv',
  cancel: 'xv',
  deliver: 'dv',
}

const CHECKPOINT_NAMES = CHECKPOINT_COLUMNS.map(([name]) => name)

/** Keys are assigned in batch order, so a batch's runs sit together in the checkpoint index. */
function createCte(tables: Tables): string {
  return `ci AS (INSERT INTO ${tables.runs} (id, workflow, version, status, input,
      created_at, updated_at, available_at, lease_owner, lease_epoch, turns, parent_run_id, parent_seq,
      continued_from, priority, admission_scope, admission_key, queue)
    SELECT id, workflow, version, status, input, created_at, created_at, available_at, lease_owner,
      epoch, epoch, parent_run_id, parent_seq, continued_from, priority, admission_scope,
      admission_key, queue FROM cv ORDER BY ord
    ON CONFLICT (id) DO NOTHING RETURNING id)`
}

/**
 * Admission within the wave (WaveAdmission): `al` locks the creates' keys in key order and
 * reads their latest committed rows; `ao` keeps the keys that admit all of the wave's creates
 * by the rule of decideAdmission — as of the statement's snapshot, no run queued and admitted +
 * creates within the stored limit (the creates' own) — and whose `next_seq` had not moved
 * since that snapshot. A key nobody moved saw no admission commit between the snapshot and the
 * lock; ends committed meanwhile only lower the count, so the snapshot's count is an upper
 * bound and admitting on it never exceeds the limit. `ag`: every key admits. Only then is
 * anything written — the wave's sources are gated on it — and `au` raises each key's
 * `next_seq` (every writer that admits does, so a later statement's lock sees it moved).
 * Otherwise the statement writes nothing and says so ('g'): the batch takes the
 * transactional pass whole, so a failure there never follows a partial commit.
 */
function admitCtes(tables: Tables, admits: string): string {
  const keys = tables.admissionKeys
  const ofKey = `r.admission_scope = al.scope AND r.admission_key = al.admission_key`
  return `av AS (SELECT * FROM ${recordsetSql(admits, 'a', ADMIT_KEY_COLUMNS)}),
al AS MATERIALIZED (SELECT k.scope, k.admission_key, k.lim, k.next_seq
    FROM ${keys} k JOIN av ON k.scope = av.scope AND k.admission_key = av.admission_key
    ORDER BY k.scope COLLATE "C", k.admission_key COLLATE "C" FOR NO KEY UPDATE OF k),
ao AS MATERIALIZED (SELECT al.scope, al.admission_key FROM al
    JOIN av ON av.scope = al.scope AND av.admission_key = al.admission_key
    WHERE al.lim = av.lim
      AND al.next_seq = (SELECT s.next_seq FROM ${keys} s
        WHERE s.scope = al.scope AND s.admission_key = al.admission_key)
      AND NOT EXISTS (SELECT 1 FROM ${tables.runs} r WHERE ${ofKey} AND r.status = 'queued')
      AND (SELECT count(*) FROM ${tables.runs} r WHERE ${ofKey}
        AND r.status IN ${ADMITTED_STATUSES}) + av.n <= al.lim),
ag AS MATERIALIZED (SELECT (SELECT count(*) FROM ao) = (SELECT count(*) FROM av) AS ok),
au AS (UPDATE ${keys} k SET next_seq = al.next_seq + 1 FROM al
    WHERE k.scope = al.scope AND k.admission_key = al.admission_key AND (SELECT ok FROM ag))`
}

const WRITES: Readonly<Record<OpKind, (tables: Tables, now: () => string) => string>> = {
  create: (tables) => createCte(tables),
  save: (
    tables,
  ) => `si AS (INSERT INTO ${tables.checkpoints} AS c (run_key, ${CHECKPOINT_NAMES.join(', ')})
    SELECT lk.key, ${CHECKPOINT_NAMES.map((name) => `sv.${name}`).join(', ')}
    FROM sv JOIN lk ON lk.id = sv.run_id AND lk.lease_epoch = sv.epoch
      AND lk.status IN ${CHECKPOINT_WRITABLE}
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
  // `dd`: deliveries whose dedupe id the run already accepted (they change nothing and get
  // their receipt, even from a run that has finished since). The message table is read at
  // the statement's snapshot: a message of the same id committed by a delivery this one
  // waited for (on lk's lock) is not seen, and the insert then fails on the unique
  // (run_key, dedupe_id), a retryable failure; the retry reports the duplicate.
  deliver: (tables, now) => `dd AS (SELECT dv.ord, m.seq FROM dv JOIN lk ON lk.id = dv.run_id
      JOIN ${tables.messages} m ON m.run_key = lk.key AND m.dedupe_id = dv.dedupe_id),
du AS (UPDATE ${tables.runs} r SET ${deliverAssignments('r', '', now(), '1', namedBy('r', 'dv.name'))}
    FROM dv JOIN lk ON lk.id = dv.run_id
    WHERE r.key = lk.key AND lk.status NOT IN ${TERMINAL_STATUSES}
      AND NOT EXISTS (SELECT 1 FROM dd WHERE dd.ord = dv.ord)
    RETURNING dv.ord, r.key, r.inbox_seq, CASE WHEN r.status = 'waiting' THEN r.available_at END AS wake_at),
mi AS (INSERT INTO ${tables.messages} (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    SELECT du.key, du.inbox_seq, dv.kind, dv.name, dv.dedupe_id, dv.payload, ${now()}
    FROM du JOIN dv ON dv.ord = du.ord)`,
}

/**
 * SQL: the message `name` is one the run row `run` waits for (its wake_on, when written in its
 * current lease epoch; wake_on.ts).
 */
function namedBy(run: string, name: string): string {
  return `${run}.wake_on IS NULL OR ${run}.wake_epoch IS DISTINCT FROM ${run}.lease_epoch
    OR strpos(${run}.wake_on, ' ' || ${name} || ' ') > 0`
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
 * The notices of the wave's finishes and cancels (`notify`: a child telling its parent), in
 * `deliver` SOURCE_COLUMNS order, `ord` being the carrying op's. Built once per wave, for the
 * statement's shape and its values.
 */
function noticeRows(groups: WaveGroups): unknown[][] {
  const rows: unknown[][] = []
  for (const { op, index } of [...groups.lease, ...groups.cancel]) {
    const notice = noticeOf(op)
    if (notice !== null) rows.push(messageRow(index, notice))
  }
  return rows
}

/**
 * The notices of the finishes and cancels that applied (`lu`, `xu`), accepted by the
 * deliverMessage rules: `np` those whose target exists and is not terminal (read in `lk`,
 * locked; the wave plan keeps every other write of the target's row out of this wave), `na`
 * those of them whose dedupe id the target has not accepted (stored, or by an earlier notice
 * of the wave), `nu` one UPDATE per target counting them (several children of one parent may
 * finish in one wave), `ni` the messages under the next seqs in batch order. Skipped notices
 * change nothing and report nothing: the op carrying one has its own result. A message of the
 * same dedupe id committed meanwhile by a delivery this statement waited for is not in its
 * snapshot: the insert then fails on the unique index, a retryable failure, as for `dd`.
 */
function noticeCtes(
  tables: Tables,
  present: readonly OpKind[],
  notices: string,
  now: () => string,
): string {
  const carriers = [
    present.includes('lease') ? 'SELECT ord FROM lu' : null,
    present.includes('cancel') ? 'SELECT ord FROM xu' : null,
  ].filter((carrier) => carrier !== null)
  return `nv AS (SELECT * FROM ${recordsetSql(notices, 't', SOURCE_COLUMNS.deliver)}),
np AS (SELECT nv.*, lk.key AS run_key FROM nv
    JOIN lk ON lk.id = nv.run_id AND lk.status NOT IN ${TERMINAL_STATUSES}
    WHERE nv.ord IN (${carriers.join(' UNION ALL ')})),
na AS (SELECT np.* FROM np
    WHERE NOT EXISTS (SELECT 1 FROM ${tables.messages} m
        WHERE m.run_key = np.run_key AND m.dedupe_id = np.dedupe_id)
      AND NOT EXISTS (SELECT 1 FROM np e
        WHERE e.run_key = np.run_key AND e.dedupe_id = np.dedupe_id AND e.ord < np.ord)),
nu AS (UPDATE ${tables.runs} r SET ${deliverAssignments('r', '', now(), 'nc.n', 'nc.named')}
    FROM (SELECT na.run_key, count(*) AS n, bool_or(${namedBy('w', 'na.name')}) AS named
        FROM na JOIN ${tables.runs} w ON w.key = na.run_key GROUP BY na.run_key) nc
    WHERE r.key = nc.run_key
    RETURNING r.key, r.inbox_seq - nc.n AS seq_before,
      CASE WHEN r.status = 'waiting' THEN r.available_at END AS wake_at),
ni AS (INSERT INTO ${tables.messages} (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    SELECT na.run_key, nu.seq_before + row_number() OVER (PARTITION BY na.run_key ORDER BY na.ord),
      na.kind, na.name, na.dedupe_id, na.payload, ${now()}
    FROM na JOIN nu ON nu.key = na.run_key)`
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
function wakeCte(present: readonly OpKind[], notices: boolean, earliest: string): string {
  const sources = [
    present.includes('create')
      ? `SELECT cv.available_at FROM cv JOIN ci ON ci.id = cv.id WHERE cv.status = 'pending'`
      : null,
    present.includes('lease') ? 'SELECT wake_at FROM lu' : null,
    present.includes('deliver') ? 'SELECT wake_at FROM du' : null,
    notices ? 'SELECT wake_at FROM nu' : null,
  ].filter((source) => source !== null)
  const applied =
    sources.length > 0 ? sources.join(' UNION ALL ') : 'SELECT NULL::bigint WHERE false'
  return `wk AS (SELECT least(${earliest}, min(w.at)) AS at FROM (${applied}) AS w(at))`
}
