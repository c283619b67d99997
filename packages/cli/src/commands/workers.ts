/**
 * `cairn workers`: the remote-step workers heard on a transport — each one's newest
 * announcement — as a table or JSON. Reads the transport's announcements only: it opens no
 * store and touches no run (docs/cli.md#cairn-workers).
 */
import { agreedProtocol, type AnnounceMessage } from '@cairn/core/wire'
import type { Command, Io, ParsedArgs } from '../command.ts'
import { integerOf } from '../options.ts'
import { formatTable } from '../output/table.ts'
import { toJson } from '../output/values.ts'
import { UsageError } from '../usage_error.ts'
import { transportFromUrl } from '../worker/transport_url.ts'

const COLUMNS = [
  'Worker',
  'Host',
  'Capabilities',
  'Steps',
  'Concurrency',
  'In flight',
  'Last seen',
  'Protocol',
]

export const workersCommand: Command = {
  name: 'workers',
  summary: 'list the workers heard on a transport',
  help: `Usage: cairn workers --transport <url> [options]

List the remote-step workers heard on a transport: each one's newest announcement (workers
announce every 10 s; one that said it leaves, or went silent, is not listed). Opens no store.

Options:
  --transport <url>     the transport (default: $CAIRN_TRANSPORT), as for cairn worker:
                        redis://, rediss://, postgres://, mysql://, mariadb://, sqlite:<path>
  --schema <name>       Postgres: the db transport's schema (default public)
  --prefix <p>          BullMQ: the key prefix (default cairn)
  --seen-within <ms>    only workers heard within this many ms (default 30000)
  --json                {"workers": [...]}
  -h, --help            this help`,
  options: {
    transport: { type: 'string' },
    schema: { type: 'string' },
    prefix: { type: 'string' },
    'seen-within': { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: [],
  async run(args, io) {
    const { url, seenWithinMs } = settingsOf(args, io)
    const text = (name: string) => args.values[name] as string | undefined
    const options = { schema: text('schema'), prefix: text('prefix') }
    const half = (await transportFromUrl(url, options, 'cairn workers')).engine()
    await half.open()
    try {
      const workers = await half.workers(Date.now() - seenWithinMs)
      if (args.values.json === true) {
        io.out(toJson({ workers: workers.map(jsonOf) }))
        return 0
      }
      const now = Date.now()
      io.out(
        workers.length === 0
          ? 'No live workers.'
          : formatTable(
              COLUMNS,
              workers.map((w) => rowOf(w, now)),
            ),
      )
      return 0
    } finally {
      await half.close()
    }
  },
}

function settingsOf(args: ParsedArgs, io: Io): { url: string; seenWithinMs: number } {
  const url = (args.values.transport as string | undefined) ?? io.env.CAIRN_TRANSPORT
  if (url === undefined || url === '')
    throw new UsageError('cairn workers: --transport <url> (or $CAIRN_TRANSPORT) is required')
  const seenWithinMs = integerOf('seen-within', args.values['seen-within'] as string | undefined, {
    min: 1,
    max: 2_147_483_647,
    fallback: 30_000,
  })
  return { url, seenWithinMs }
}

/** An announcement as listed: with the protocol version this CLI's engine code would agree on. */
function jsonOf(w: AnnounceMessage) {
  return {
    workerId: w.workerId,
    host: w.host,
    pid: w.pid,
    runtime: w.runtime,
    steps: w.steps,
    capabilities: w.capabilities,
    concurrency: w.concurrency,
    inFlight: w.inFlight,
    startedAt: new Date(w.startedAt).toISOString(),
    lastSeenAt: new Date(w.at).toISOString(),
    protocols: w.protocols,
    protocol: agreedProtocol(w.protocols),
  }
}

function rowOf(w: AnnounceMessage, now: number): string[] {
  const { mode, limit, min, max } = w.concurrency
  const protocol = agreedProtocol(w.protocols)
  return [
    w.workerId,
    w.pid === null ? w.host : `${w.host}:${w.pid}`,
    w.capabilities.join(', ') || '—',
    w.steps.join(', '),
    mode === 'fixed' ? String(limit) : `${limit} (adaptive ${min ?? '?'}–${max ?? '?'})`,
    String(w.inFlight),
    `${Math.max(0, Math.round((now - w.at) / 1000))} s ago`,
    protocol === null ? `incompatible (${w.protocols.join(', ')})` : `v${protocol}`,
  ]
}
