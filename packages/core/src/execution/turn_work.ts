/**
 * What a turn waits for before it may suspend or end, counted in one place: writes in flight,
 * outcomes not yet delivered, step attempts running, timers and holds kept in memory. Part of
 * it is the engine's own (writes, deliveries, store reads): test harnesses wait for that part
 * to be done before moving a fake clock (Turn.quiet); step bodies are the user's and may run
 * as long as they like. When nothing is left the turn is idle, looked at once the macrotask's
 * microtasks have run (the body may still be reacting to its last outcome).
 */
export class TurnWork {
  #active = 0
  #engine = 0
  #idleCheck = false
  readonly #canAct: () => boolean
  readonly #onIdle: () => void

  /** `onIdle`: nothing is left and the turn can act (`canAct`): suspend, or unwind a cancel. */
  constructor(canAct: () => boolean, onIdle: () => void) {
    this.#canAct = canAct
    this.#onIdle = onIdle
  }

  get idle(): boolean {
    return this.#active === 0
  }

  /** No engine work in flight and no idle check pending. */
  get engineQuiet(): boolean {
    return this.#engine === 0 && !this.#idleCheck
  }

  /** Work of the turn's own (an attempt, a timer or a hold kept in memory). */
  start(): void {
    this.#active += 1
  }

  /** That work is over: the turn may be idle now. */
  end(): void {
    this.#active -= 1
    this.checkSoon()
  }

  /** That work is over, and what ended it acts next (it checks for idleness itself). */
  endQuietly(): void {
    this.#active -= 1
  }

  /** Engine work the turn waits for: a write, an outcome to deliver, a store read. */
  startEngine(): void {
    this.#active += 1
    this.#engine += 1
  }

  /** The engine's part is done (a write's result came); the turn's part ends with end(). */
  engineDone(): void {
    this.#engine -= 1
  }

  /** An outcome reached the body: the deliverer checks for idleness after its microtasks. */
  delivered(): void {
    this.#active -= 1
    this.#engine -= 1
  }

  /** Engine work the turn does not wait for (an inbox read while other waits go on). */
  startReading(): void {
    this.#engine += 1
  }

  endReading(): void {
    this.#engine -= 1
  }

  /** Look at the turn in the next macrotask, if nothing is left to do now. */
  checkSoon(): void {
    if (this.#active > 0 || this.#idleCheck || !this.#canAct()) return
    this.#idleCheck = true
    dueChecks.push(this)
    if (dueChecks.length === 1) setImmediate(runDueChecks)
  }

  /** The idle check checkSoon asked for (runDueChecks calls it, a macrotask later). */
  runIdleCheck(): void {
    this.#idleCheck = false
    if (this.#active !== 0 || !this.#canAct()) return
    this.#onIdle()
  }
}

/**
 * Turns whose idle check is due, for one `setImmediate` that looks at all of them: a batch's
 * results reach every run it carried in one macrotask, and each of those turns asks for a check
 * (one timer object per turn and step, otherwise). A check asked for while these run waits for
 * the next macrotask, as with a timer of its own.
 */
let dueChecks: TurnWork[] = []

function runDueChecks(): void {
  const due = dueChecks
  dueChecks = []
  for (const work of due) work.runIdleCheck()
}
