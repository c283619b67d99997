/**
 * What a fault-test child process tells its test, by environment: CRASH_LOG (warnings and
 * errors, one JSON line each with the instance id, so a test can count what the engine noticed:
 * lost leases, fenced writes) and CRASH_TRACE (every lifecycle event, one line each, so a test
 * that finds a run stuck can show the last thing that happened to it).
 */
import { appendFileSync } from 'node:fs'
import { channels, silentLogger, type Engine, type EngineEventName, type Logger } from '@cairn/core'

function errorText(err: unknown): string | undefined {
  if (err === undefined) return undefined
  const { code, message } = err as { code?: unknown; message?: unknown }
  return `${String(code ?? '')} ${String(message ?? err)}`.slice(0, 300)
}

export function childLogger(): Logger {
  const file = process.env.CRASH_LOG
  if (file === undefined) return silentLogger
  const write = (level: string) => (obj: Record<string, unknown>, msg: string) =>
    appendFileSync(
      file,
      `${JSON.stringify({ level, msg, instance: process.env.CRASH_INSTANCE, runId: obj.runId, reason: obj.reason, err: errorText(obj.err) })}\n`,
    )
  return { ...silentLogger, warn: write('warn'), error: write('error') }
}

export function traceEvents(engine: Engine, file: string | undefined): void {
  if (file === undefined) return
  const names = Object.keys(channels) as EngineEventName[]
  for (const name of names) {
    engine.on(name, (event) => {
      const { runId, seq } = event as { runId: string; seq?: number }
      appendFileSync(file, `${Date.now()} ${runId} ${name}${seq === undefined ? '' : ` #${seq}`}\n`)
    })
  }
}
