/**
 * Where things live in Redis. Tasks go to one BullMQ queue per (step, requirement set), so a
 * worker fetches only from queues it may serve and never has to skip a task; the routes hash
 * lists those queues for workers. Reports (results and heartbeats) share one Redis Stream read
 * by a consumer group of every engine (report_stream.ts). Announcements are one hash field per
 * worker. A pub/sub channel wakes idle workers when a queue gets work.
 *
 *   <prefix>:t.<step>[.<requires>]:*   BullMQ task queue (names base64url: ':' is not allowed)
 *   <prefix>:cairn:reports             stream of reports, consumer group `engines`
 *   <prefix>:cairn:routes              hash: task queue name → {"step","requires"}
 *   <prefix>:cairn:workers             hash: worker id → its newest announcement (JSON)
 *   <prefix>:cairn:redelivered         hash: step name → deliveries beyond a task's first
 *   <prefix>:cairn:wake                channel: the name of a queue that got work
 */
import { Redis } from 'ioredis'
import type { ResolvedOptions } from './options.ts'

export interface Route {
  step: string
  requires: string[]
}

export function taskQueueName(step: string, requires: readonly string[]): string {
  const name = `t.${Buffer.from(step, 'utf8').toString('base64url')}`
  const needs = [...new Set(requires)].sort()
  if (needs.length === 0) return name
  return `${name}.${Buffer.from(JSON.stringify(needs), 'utf8').toString('base64url')}`
}

export function routeOf(step: string, requires: readonly string[]): Route {
  return { step, requires: [...new Set(requires)].sort() }
}

export const routesKey = (prefix: string): string => `${prefix}:cairn:routes`
export const workersKey = (prefix: string): string => `${prefix}:cairn:workers`
export const redeliveredKey = (prefix: string): string => `${prefix}:cairn:redelivered`
export const wakeChannel = (prefix: string): string => `${prefix}:cairn:wake`

/** A job option for every task and report: a finished job leaves Redis (its id may come again). */
export const REMOVE_ON_COMPLETE = { removeOnComplete: true } as const

/** Which task queues a worker with these steps and capabilities may take from. */
export function servedQueues(
  routes: Record<string, string>,
  steps: readonly string[],
  capabilities: readonly string[],
): string[] {
  const served: string[] = []
  for (const [queue, text] of Object.entries(routes)) {
    let route: Route
    try {
      route = JSON.parse(text) as Route
    } catch {
      continue
    }
    if (typeof route.step !== 'string' || !Array.isArray(route.requires)) continue
    if (!steps.includes(route.step)) continue
    if (!route.requires.every((need) => capabilities.includes(need))) continue
    served.push(queue)
  }
  return served.sort()
}

/**
 * A connection of the transport's own. `maxRetriesPerRequest: null` as BullMQ requires (commands
 * wait through a reconnect instead of failing); the first connect fails fast and clearly.
 * `made` sees the client at once, so a close can disconnect one still waiting for Redis's
 * answer (after the TCP connect, ioredis has no timeout of its own); a disconnect rejects.
 */
export async function connect(
  options: ResolvedOptions,
  role: string,
  made: (client: Redis) => void = () => {},
): Promise<Redis> {
  // Not lazyConnect: BullMQ duplicates this client for its blocking connections, and a lazy
  // duplicate closed before it connected leaves a rejection nobody handles.
  const client = new Redis({
    ...options.redis,
    lazyConnect: false,
    maxRetriesPerRequest: null,
    connectionName: `cairn:${role}`,
  })
  made(client)
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve)
      client.once('error', reject)
      client.once('end', () => reject(new Error('the connection was closed')))
    })
  } catch (error) {
    client.disconnect()
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`bullmq transport: cannot reach Redis at ${options.where}: ${reason}`, {
      cause: error,
    })
  }
  client.on('error', options.onError)
  return client
}

/** Closes a connection of the transport's own; a broken one is just dropped. */
export async function quit(client: Redis | null): Promise<void> {
  if (client === null) return
  try {
    if (client.status === 'ready') await client.quit()
    else client.disconnect()
  } catch {
    client.disconnect()
  }
}

/** A BullMQ error that says the job is no longer this holder's (lapsed hold, finished job). */
export function isNotHeld(error: unknown): boolean {
  const message = error instanceof Error ? error.message : ''
  return /^(Missing lock for job|Lock mismatch for job|Missing key for job|Job .* is not in the \w+ state)/.test(
    message,
  )
}
