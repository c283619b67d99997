/**
 * Fresh plans as the runs table grows. Postgres plans a named prepared statement for its bound
 * values five times, then settles on a generic plan it never reconsiders on that connection
 * (until an ANALYZE invalidates it). Settled while `cairn_runs` is a few pages — a new database,
 * autovacuum not yet round — the generic plan of a statement that finds runs by id (a wave's
 * lock, `id = ANY($1)`) is a Seq Scan, and stays one as the table grows: creating 100,000 runs
 * on a fresh database fell from ~3,000 to ~450 runs/s, and stayed flat with
 * `plan_cache_mode = force_custom_plan` (which costs every statement a planning, 15–20 % of the
 * hot path's throughput here). So the store watches the table: it reads its size
 * (`pg_relation_size`, a file size: no scan) after every CHECK_STATEMENTS statements it sends, or
 * CHECK_MS after the last read, whichever comes first, and each time the table has doubled since
 * the last renewal (from FIRST_BYTES on), the pool's statement names change — every connection
 * prepares them anew, five custom plans then a generic one, on the table as it is now. About
 * 15 renewals from an empty table to gigabytes; the statements of old names stay prepared on
 * their connections until those close.
 *
 * Why a count as well as a time: the table grows only by statements, so under load the count
 * keeps a plan within one doubling of the table it was made on, however fast it grows. With a
 * read every 5 s alone, the standard bench's runs table went from a few pages to ~5,000 runs
 * between two reads and every wave's lock scanned it: 9–10k steps/s, against 25–29k with the
 * count (`npm run bench -- --store postgres`, same machine, same minutes).
 */

/** The size is read after this many statements since the last read… */
export const CHECK_STATEMENTS = 100
/** …or this long after it (only while statements are being sent), whichever comes first. */
export const CHECK_MS = 5_000
/** The first size that renews (below it, a Seq Scan is what an index plan would cost). */
export const FIRST_BYTES = 256 * 1024

export class PlanRefresh {
  /** Appended to every statement name: a new generation is a new set of prepared statements. */
  generation = 0
  readonly #probe: () => Promise<number>
  readonly #now: () => number
  #baseline = FIRST_BYTES / 2
  #checkedAt = Number.NEGATIVE_INFINITY
  /** Statements sent since the last read. */
  #sent = 0
  #checking = false

  /** `probe`: the table's size in bytes now. */
  constructor(probe: () => Promise<number>, now: () => number = () => performance.now()) {
    this.#probe = probe
    this.#now = now
  }

  /** Called before a statement is sent: reads the size in the background when it is time. */
  tick(): void {
    this.#sent += 1
    if (this.#checking) return
    if (this.#sent < CHECK_STATEMENTS && this.#now() - this.#checkedAt < CHECK_MS) return
    this.#checking = true
    this.#checkedAt = this.#now()
    this.#sent = 0
    this.#probe().then(
      (bytes) => {
        this.#checking = false
        if (bytes < this.#baseline * 2) return
        this.#baseline = bytes
        this.generation += 1
      },
      // A failed read changes nothing: the next one is due after CHECK_STATEMENTS or CHECK_MS.
      () => (this.#checking = false),
    )
  }
}
