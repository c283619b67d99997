/**
 * The seam between the shared SQL layer and a client library (pg, mysql2). Types only: each
 * dialect folder implements it over its library. Everything above this seam speaks in
 * statements, array rows and affected counts, so it never touches a library's own types.
 */

/** One SQL statement and its bound values, in placeholder order. */
export interface SqlStatement {
  text: string
  values: readonly unknown[]
  /**
   * The statement changes data. Run outside a transaction (autocommit), a connection lost
   * while it is in flight leaves its outcome unknown: the driver then rejects with
   * `OutcomeUnknown` instead of an error that invites a retry.
   */
  writes?: boolean
  /**
   * A name for the server-side prepared statement, when the caller already has one for this
   * text (drivers otherwise derive one, or do not prepare).
   */
  name?: string
}

export interface SqlResult {
  /** Rows as arrays, columns in select-list order. Integers may be numbers, bigints or strings. */
  rows: unknown[][]
  /** Rows inserted, updated or deleted, as the server counts them. */
  affected: number
}

/** Runs statements one after the other; inside `transaction`, all on one connection. */
export interface SqlSession {
  query(statement: SqlStatement): Promise<SqlResult>
}

/**
 * What a failure means for the caller:
 * - `retryable`: nothing was applied and trying again may succeed (deadlock, serialization
 *   failure, a connection lost before anything could commit);
 * - `outcome_unknown`: the connection was lost while a commit (or an autocommit write) was in
 *   flight: it may or may not have happened;
 * - `fatal`: nothing was applied and trying again will fail the same way.
 */
export type FailureKind = 'retryable' | 'outcome_unknown' | 'fatal'

/** A pool of connections to one database. The session methods run in autocommit. */
export interface SqlPool extends SqlSession {
  /**
   * BEGIN, `body`, COMMIT on one connection; ROLLBACK when `body` rejects. A connection lost
   * during COMMIT rejects with `OutcomeUnknown`; any earlier failure means nothing applied.
   */
  transaction<T>(body: (session: SqlSession) => Promise<T>): Promise<T>
  classify(error: unknown): FailureKind
  /** Facts about a failure for error details: the server's error code, its name. */
  describe(error: unknown): Record<string, unknown>
  /** True when a statement failed because a table (or its schema) does not exist. */
  isMissingTable(error: unknown): boolean
  /** Ends the connections this pool owns. */
  close(): Promise<void>
  /** Statements sent so far, BEGIN and COMMIT included: the round trips, for tests and benchmarks. */
  readonly statementCount: number
}
