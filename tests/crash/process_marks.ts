/**
 * Faults on engine processes that the effect ledger records (ledger.ts), so ledger checks know
 * when a process was paused or dead: `stop` once a SIGSTOP has taken effect, `cont` just before
 * SIGCONT, `dead` once a SIGKILLed process has exited.
 */
import { readFileSync } from 'node:fs'
import { markLedger } from './ledger.ts'
import { kill, pause, type EngineChild } from './supervisor.ts'

export async function freeze(engine: EngineChild, ledger: string): Promise<void> {
  const pid = engine.child.pid as number
  engine.child.kill('SIGSTOP')
  // Signal delivery is asynchronous: mark only once the kernel shows the process stopped.
  for (let i = 0; i < 500 && !stopped(pid); i++) await pause(2)
  if (!stopped(pid)) throw new Error(`process ${pid} did not stop`)
  markLedger(ledger, 'stop', pid)
}

export function thaw(engine: EngineChild, ledger: string): void {
  const pid = engine.child.pid as number
  markLedger(ledger, 'cont', pid)
  engine.child.kill('SIGCONT')
}

export async function killMarked(engine: EngineChild, ledger: string): Promise<void> {
  await kill(engine)
  markLedger(ledger, 'dead', engine.child.pid as number)
}

/** State `T` (stopped) in /proc/<pid>/stat: the field after the parenthesised command name. */
function stopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')
}
