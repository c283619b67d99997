/**
 * Queue-test plumbing: step handlers that wait until the test opens them, counting how many
 * run at once (the amount of work read from what ran, never assumed), and a bounded wait on
 * the engines.
 */
import assert from 'node:assert/strict'
import type { Env } from './harness.ts'

export class Gate {
  running = 0
  maxRunning = 0
  readonly started: string[] = []
  readonly #waiting: Array<() => void> = []

  handler = async (name: string): Promise<string> => {
    this.running += 1
    this.maxRunning = Math.max(this.maxRunning, this.running)
    this.started.push(name)
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
    this.running -= 1
    return `done ${name}`
  }

  /** Let the oldest blocked handler finish. */
  openOne(): void {
    this.#waiting.shift()?.()
  }

  /** Let every blocked handler finish. */
  openAll(): void {
    for (const open of this.#waiting.splice(0)) open()
  }

  get blocked(): number {
    return this.#waiting.length
  }
}

/** Waits (settling engines) until `check` holds; fails after `rounds` rounds of ~5 ms. */
export async function until(
  env: Env,
  check: () => boolean | Promise<boolean>,
  what: string,
  rounds = 300,
): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (await check()) return
    await env.settle()
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.fail(`timed out waiting until ${what}`)
}
