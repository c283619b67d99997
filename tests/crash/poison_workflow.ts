/**
 * The workflow of the poison-run kill test (tests/multi_engine/poison_kill.test.ts): `poison`
 * records a step, then kills its own process (SIGKILL: no drain, no cleanup) in the next one,
 * on every attempt. Its dead letter, `bury`, appends what it received. Each line of the ledger
 * is `<what> <runId> <pid>`, written before the effect, so the test counts what really ran.
 */
import { appendFileSync } from 'node:fs'
import type { DeadLetter, Engine } from '@cairn/core'

export function registerPoisonWorkflow(engine: Engine, ledger: string): void {
  const note = (line: string) => appendFileSync(ledger, `${line} ${process.pid}\n`)
  engine.register(
    'poison',
    1,
    async (ctx) => {
      await ctx.localStep('reserve', () => note(`reserve ${ctx.runId}`))
      await ctx.localStep('explode', () => {
        note(`explode ${ctx.runId}`)
        process.kill(process.pid, 'SIGKILL')
        return new Promise<never>(() => {})
      })
    },
    { deadLetterWorkflow: 'bury' },
  )
  engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
    await ctx.localStep('record', () =>
      note(`letter ${letter.deadRunId} ${letter.status} ${letter.recoveries} ${letter.error.code}`),
    )
  })
}

export function poisonLines(text: string, what: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${what} `))
}
