/**
 * A worker from the future for the protocol fault test: it speaks only wire protocol 99. It
 * opens the worker half of the transport its spec names, announces itself, then tries to take
 * tasks; it prints what each step answered (`announce: <code>`, `receive: <code>`, or `took
 * <n>`) and exits 1 when refused.
 * Usage: node future_worker.ts <transport spec JSON>
 */
import { hostname } from 'node:os'
import { transportOf, type TransportSpec } from './transport_spec.ts'

const [spec = ''] = process.argv.slice(2)
const worker = (await transportOf(JSON.parse(spec) as TransportSpec)).worker()
await worker.open()
let refused = false
const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error)
try {
  await worker.announce({
    v: 1,
    type: 'announce',
    workerId: `future-${process.pid}`,
    protocols: [99],
    host: hostname(),
    pid: process.pid,
    runtime: `node ${process.versions.node}`,
    steps: ['slow'],
    capabilities: [],
    concurrency: { mode: 'fixed', limit: 4 },
    inFlight: 0,
    startedAt: Date.now(),
    at: Date.now(),
  })
  process.stdout.write('announce: accepted\n')
} catch (error) {
  refused = true
  process.stdout.write(`announce: ${codeOf(error)}\n`)
}
try {
  const taken = await worker.receive({
    steps: ['slow'],
    capabilities: [],
    max: 4,
    holdMs: 60_000,
    signal: AbortSignal.timeout(2_000),
  })
  process.stdout.write(`took ${taken.length}\n`)
} catch (error) {
  refused = true
  process.stdout.write(`receive: ${codeOf(error)}\n`)
}
await worker.close()
process.exit(refused ? 1 : 0)
