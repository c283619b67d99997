/**
 * `cairn worker`: runs remote steps outside AdonisJS — the `defineStep` references a module
 * exports — taking tasks from a transport named by URL, until Ctrl-C or SIGTERM, then drains.
 * It opens no store: `@cairn/worker` and one transport (docs/workers.md).
 */
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { InvalidArgumentError, isStepReference, type StepReference } from '@cairn/core'
import type { Command, Io, ParsedArgs } from '../command.ts'
import { integerOf } from '../options.ts'
import { redactUrl } from '../store/redact.ts'
import { UsageError } from '../usage_error.ts'
import { transportFromUrl } from '../worker/transport_url.ts'

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run the remote steps a module exports, taking tasks from a transport',
  help: `Usage: cairn worker --steps <module> [options]

Run remote steps until Ctrl-C or SIGTERM, then drain: stop taking tasks, let running ones
finish for up to --drain-timeout, hand the rest back to the transport. No store is opened.

Options:
  --steps <module>        an ES module (.js, .mjs, .ts) whose exports are defineStep references
                          (each named export, or the default export: one or an array)
  --transport <url>       where tasks come from (default: $CAIRN_TRANSPORT):
                          redis://… or rediss://…   BullMQ (install @cairn/bullmq)
                          postgres://…              the db transport on Postgres (--schema)
                          mysql://… or mariadb://…  the db transport on MariaDB/MySQL
                          sqlite:<path> or a path   the db transport on SQLite
  --schema <name>         Postgres: the db transport's schema (default public)
  --prefix <p>            BullMQ: the key prefix (default cairn)
  --concurrency <n>       most steps running at once (default 10); "adaptive" or
                          "adaptive:MIN-MAX" moves it by event-loop, CPU and memory load
  --capabilities <a,b>    what this worker offers (steps that require them come here)
  --worker-id <id>        its id (default host-pid-random)
  --heartbeat-timeout <ms>  how long a task stays held without a heartbeat (default 30000)
  --drain-timeout <ms>    on a stop, how long running steps may finish (default 10000)
  -h, --help              this help`,
  options: {
    steps: { type: 'string' },
    transport: { type: 'string' },
    schema: { type: 'string' },
    prefix: { type: 'string' },
    concurrency: { type: 'string' },
    capabilities: { type: 'string' },
    'worker-id': { type: 'string' },
    'heartbeat-timeout': { type: 'string' },
    'drain-timeout': { type: 'string' },
  },
  positionals: [],
  async run(args, io) {
    const settings = settingsOf(args, io)
    const { createWorker, concurrencyFromText } = await import('@cairn/worker')
    const concurrency = asUsage(() => concurrencyFromText(settings.concurrency))
    const steps = await loadSteps(settings.steps)
    const transport = await transportFromUrl(settings.transport, settings)
    const worker = createWorker({
      transport: transport.worker(),
      steps,
      concurrency,
      holdMs: settings.holdMs,
      ...(settings.capabilities === undefined ? {} : { capabilities: settings.capabilities }),
      ...(settings.workerId === undefined ? {} : { workerId: settings.workerId }),
    })
    await worker.start()
    io.out(
      `cairn worker "${worker.id}" on ${redactUrl(settings.transport)}: ${steps.length} step(s): ${steps.map((s) => s.name).join(', ')}`,
    )
    io.out('Taking tasks. Ctrl-C or SIGTERM drains and stops.')
    await io.waitForStop()
    io.out(`Stopping: draining for up to ${settings.drainMs} ms`)
    await worker.close(settings.drainMs)
    io.out('Stopped.')
    return 0
  },
}

interface WorkerSettings {
  steps: string
  transport: string
  schema: string | undefined
  prefix: string | undefined
  /** As given (concurrencyFromText reads it, with @cairn/worker loaded). */
  concurrency: string
  capabilities: string[] | undefined
  workerId: string | undefined
  holdMs: number
  drainMs: number
}

function settingsOf(args: ParsedArgs, io: Io): WorkerSettings {
  const text = (name: string): string | undefined => args.values[name] as string | undefined
  const steps = text('steps')
  if (steps === undefined || steps === '')
    throw new UsageError('cairn worker: --steps <module> is required')
  const transport = text('transport') ?? io.env.CAIRN_TRANSPORT
  if (transport === undefined || transport === '')
    throw new UsageError('cairn worker: --transport <url> (or $CAIRN_TRANSPORT) is required')
  const capabilities = text('capabilities')
  return {
    steps,
    transport,
    schema: text('schema'),
    prefix: text('prefix'),
    concurrency: text('concurrency') ?? '10',
    capabilities:
      capabilities === undefined
        ? undefined
        : capabilities
            .split(',')
            .map((c) => c.trim())
            .filter((c) => c !== ''),
    workerId: text('worker-id'),
    holdMs: integerOf('heartbeat-timeout', text('heartbeat-timeout'), {
      min: 1_000,
      max: 2_147_483_647,
      fallback: 30_000,
    }),
    drainMs: integerOf('drain-timeout', text('drain-timeout'), {
      min: 0,
      max: 2_147_483_647,
      fallback: 10_000,
    }),
  }
}

/** The defineStep references `path` exports: named exports, and the default (one or an array). */
async function loadSteps(path: string): Promise<StepReference<never, unknown>[]> {
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path)
  let module: Record<string, unknown>
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch (error) {
    throw new InvalidArgumentError(`--steps ${path}: cannot load it: ${(error as Error).message}`, {
      cause: error,
    })
  }
  const found: StepReference<never, unknown>[] = []
  for (const value of Object.values(module))
    for (const candidate of Array.isArray(value) ? value : [value])
      if (isStepReference(candidate) && !found.includes(candidate)) found.push(candidate)
  if (found.length === 0)
    throw new InvalidArgumentError(
      `--steps ${path}: exports no defineStep reference (export each step, or a default array of them)`,
    )
  return found
}

/** A refused flag value is a usage error (exit 2), like the other flags'. */
function asUsage<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (InvalidArgumentError.is(error)) throw new UsageError(error.message)
    throw error
  }
}
