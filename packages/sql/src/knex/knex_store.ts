/**
 * A StateStore on a Knex instance: which store it is follows Knex's client (dialect.ts), and
 * that store is built when open() is first called, loading only its own dialect's modules (an
 * application on SQLite needs neither `pg` nor `mysql2` installed). Every call goes to it as it
 * is; before open() a call rejects as on any store that was never opened.
 */
import type { StateStore } from '@cairn/core/contracts'
import type { Knex } from 'knex'
import { closedStoreError } from '../shared/failures.ts'
import { knexTarget, type KnexDialect, type KnexTarget } from './dialect.ts'
import { checkOptionsFor, type KnexStoreOptions } from './options.ts'
import { knexTransactions } from './transaction_opener.ts'
import { checkpointTables } from './transactional_checkpoint.ts'
import { runTransactionalStep, type TransactionalStepTarget } from './transactional_step.ts'

export class KnexStore implements StateStore {
  readonly kind: KnexDialect
  /**
   * Postgres only (LISTEN/NOTIFY), set by the constructor: stores without push leave it out
   * (`declare`: no property at all), and engines poll.
   */
  declare readonly watchClaimable?: StateStore['watchClaimable']
  readonly #target: KnexTarget
  readonly #options: KnexStoreOptions
  readonly #transactional: TransactionalStepTarget
  #store: StateStore | null = null
  #loading: Promise<StateStore> | null = null
  #closed = false

  /**
   * Throws E_INVALID_ARGUMENT for a client other than pg, mysql2 or better-sqlite3, a
   * transaction instead of the instance, or an option that is invalid or of another dialect.
   */
  constructor(knex: Knex, options: KnexStoreOptions = {}) {
    this.#target = knexTarget(knex)
    checkOptionsFor(this.#target, options)
    this.#options = { ...options }
    this.kind = this.#target.dialect
    this.#transactional = {
      knex,
      dialect: this.kind,
      tables: checkpointTables(this.kind, options.schema ?? options.database),
      opener: options.transactions ?? knexTransactions(knex),
    }
    if (this.kind === 'postgres') {
      this.watchClaimable = (onWake) => this.#opened('watchClaimable').watchClaimable!(onWake)
    }
  }

  /** Builds the dialect's store (once), then opens it: migrates, as every store's open() does. */
  async open(): Promise<void> {
    if (this.#closed) throw closedStoreError(this.kind, 'open')
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = null // a failed load may be retried
      throw error
    })
    await (await this.#loading).open()
  }

  /** Closes the dialect's store; the Knex instance stays open (it is the application's). */
  async close(): Promise<void> {
    this.#closed = true
    await (await this.#loading?.catch(() => null))?.close()
  }

  readonly applyBatch: StateStore['applyBatch'] = (ops, now) =>
    this.#opened('applyBatch').applyBatch(ops, now)
  readonly claimRuns: StateStore['claimRuns'] = (request) =>
    this.#opened('claimRuns').claimRuns(request)
  readonly reclaimOwned: StateStore['reclaimOwned'] = (owner, now) =>
    this.#opened('reclaimOwned').reclaimOwned(owner, now)
  readonly parkUnrunnable: StateStore['parkUnrunnable'] = (runnable, olderThan, reason, now) =>
    this.#opened('parkUnrunnable').parkUnrunnable(runnable, olderThan, reason, now)
  readonly unpark: StateStore['unpark'] = (keys, reasonCode, now) =>
    this.#opened('unpark').unpark(keys, reasonCode, now)
  readonly requeueRun: StateStore['requeueRun'] = (request) =>
    this.#opened('requeueRun').requeueRun(request)
  readonly promoteQueued: StateStore['promoteQueued'] = (keys, now) =>
    this.#opened('promoteQueued').promoteQueued(keys, now)
  readonly admissionKeys: StateStore['admissionKeys'] = (query) =>
    this.#opened('admissionKeys').admissionKeys(query)
  readonly grantQueueSlots: StateStore['grantQueueSlots'] = (queues, now) =>
    this.#opened('grantQueueSlots').grantQueueSlots(queues, now)
  readonly queueStats: StateStore['queueStats'] = (queues, now) =>
    this.#opened('queueStats').queueStats(queues, now)
  readonly leaseQueueSlots: NonNullable<StateStore['leaseQueueSlots']> = (request, now) =>
    this.#opened('leaseQueueSlots').leaseQueueSlots(request, now)
  readonly getRun: StateStore['getRun'] = (runId) => this.#opened('getRun').getRun(runId)
  readonly loadCheckpoints: StateStore['loadCheckpoints'] = (runId) =>
    this.#opened('loadCheckpoints').loadCheckpoints(runId)
  readonly loadInbox: StateStore['loadInbox'] = (runId, afterSeq) =>
    this.#opened('loadInbox').loadInbox(runId, afterSeq)
  readonly listRuns: StateStore['listRuns'] = (query) => this.#opened('listRuns').listRuns(query)
  readonly facetRuns: StateStore['facetRuns'] = (query) =>
    this.#opened('facetRuns').facetRuns(query)
  readonly loadCheckpointPage: StateStore['loadCheckpointPage'] = (runId, page) =>
    this.#opened('loadCheckpointPage').loadCheckpointPage(runId, page)
  readonly backlog: StateStore['backlog'] = (now) => this.#opened('backlog').backlog(now)
  readonly appendEvent: StateStore['appendEvent'] = (event, prune, batches) =>
    this.#opened('appendEvent').appendEvent(event, prune, batches)
  readonly claimEventBatches: StateStore['claimEventBatches'] = (request) =>
    this.#opened('claimEventBatches').claimEventBatches(request)
  readonly deleteEventBatch: StateStore['deleteEventBatch'] = (workflow, key, id) =>
    this.#opened('deleteEventBatch').deleteEventBatch(workflow, key, id)
  readonly putSchedule: StateStore['putSchedule'] = (put) =>
    this.#opened('putSchedule').putSchedule(put)
  readonly getSchedule: StateStore['getSchedule'] = (id) =>
    this.#opened('getSchedule').getSchedule(id)
  readonly listSchedules: StateStore['listSchedules'] = (query) =>
    this.#opened('listSchedules').listSchedules(query)
  readonly deleteSchedule: StateStore['deleteSchedule'] = (id) =>
    this.#opened('deleteSchedule').deleteSchedule(id)
  readonly claimDueSchedules: StateStore['claimDueSchedules'] = (request) =>
    this.#opened('claimDueSchedules').claimDueSchedules(request)
  readonly advanceSchedule: StateStore['advanceSchedule'] = (advance) =>
    this.#opened('advanceSchedule').advanceSchedule(advance)
  readonly loadEvents: StateStore['loadEvents'] = (name, since) =>
    this.#opened('loadEvents').loadEvents(name, since)
  readonly loadEventWaits: StateStore['loadEventWaits'] = (name) =>
    this.#opened('loadEventWaits').loadEventWaits(name)
  readonly removeEventWaits: StateStore['removeEventWaits'] = (waits) =>
    this.#opened('removeEventWaits').removeEventWaits(waits)
  readonly loadSearchAttributes: StateStore['loadSearchAttributes'] = (runIds) =>
    this.#opened('loadSearchAttributes').loadSearchAttributes(runIds)

  readonly retentionCutoff: StateStore['retentionCutoff'] = (query) =>
    this.#opened('retentionCutoff').retentionCutoff(query)

  readonly expiredRuns: StateStore['expiredRuns'] = (query) =>
    this.#opened('expiredRuns').expiredRuns(query)

  readonly deleteRunTrees: StateStore['deleteRunTrees'] = (request) =>
    this.#opened('deleteRunTrees').deleteRunTrees(request)

  readonly appendStepLogs: StateStore['appendStepLogs'] = (appends, now) =>
    this.#opened('appendStepLogs').appendStepLogs(appends, now)

  readonly loadStepLogs: StateStore['loadStepLogs'] = (runId, page) =>
    this.#opened('loadStepLogs').loadStepLogs(runId, page)

  /**
   * Transactional steps run on the application's Knex instance itself (transactional_step.ts),
   * beside the dialect's store, which needs to be open: its tables must exist.
   */
  readonly runTransactionalStep: NonNullable<StateStore['runTransactionalStep']> = (
    fence,
    work,
  ) => {
    if (this.#store === null || this.#closed)
      return Promise.reject(closedStoreError(this.kind, 'runTransactionalStep'))
    return runTransactionalStep(this.#transactional, fence, work)
  }

  /** The dialect's store (which rejects calls once closed), or one rejecting every call. */
  #opened(operation: string): Required<StateStore> {
    return (this.#store ?? neverOpened(this.kind, operation)) as Required<StateStore>
  }

  async #load(): Promise<StateStore> {
    const { client, dialect } = this.#target
    const options = this.#options
    switch (dialect) {
      case 'postgres':
        this.#store = (await import('./postgres_store.ts')).knexPostgresStore(client, options)
        break
      case 'mysql':
        this.#store = (await import('./mysql_store.ts')).knexMysqlStore(client, options)
        break
      case 'sqlite':
        this.#store = (await import('./sqlite_store.ts')).knexSqliteStore(client, options)
        break
    }
    return this.#store
  }
}

export function createKnexStore(knex: Knex, options?: KnexStoreOptions): KnexStore {
  return new KnexStore(knex, options)
}

/** Stands in for the dialect's store before open(): every call rejects. */
function neverOpened(kind: string, operation: string): Required<StateStore> {
  const reject = () => Promise.reject(closedStoreError(kind, operation))
  return {
    kind,
    open: reject,
    close: reject,
    applyBatch: reject,
    claimRuns: reject,
    reclaimOwned: reject,
    parkUnrunnable: reject,
    unpark: reject,
    requeueRun: reject,
    promoteQueued: reject,
    admissionKeys: reject,
    grantQueueSlots: reject,
    queueStats: reject,
    leaseQueueSlots: reject,
    getRun: reject,
    loadCheckpoints: reject,
    loadInbox: reject,
    listRuns: reject,
    facetRuns: reject,
    loadCheckpointPage: reject,
    backlog: reject,
    appendEvent: reject,
    claimEventBatches: reject,
    deleteEventBatch: reject,
    putSchedule: reject,
    getSchedule: reject,
    listSchedules: reject,
    deleteSchedule: reject,
    claimDueSchedules: reject,
    advanceSchedule: reject,
    loadEvents: reject,
    loadEventWaits: reject,
    removeEventWaits: reject,
    loadSearchAttributes: reject,
    retentionCutoff: reject,
    expiredRuns: reject,
    deleteRunTrees: reject,
    appendStepLogs: reject,
    loadStepLogs: reject,
    watchClaimable: reject,
    runTransactionalStep: reject,
  }
}
