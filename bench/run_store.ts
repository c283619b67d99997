/**
 * One benchmark row, in its own process (fresh heap, its own peak RSS): prints one JSON line.
 *   node bench/run_store.ts <row>
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROWS } from './rows.ts'

const store = process.argv[2] ?? 'memory'
const row = ROWS[store]
if (row === undefined)
  throw new Error(`unknown row ${store} (known: ${Object.keys(ROWS).join(', ')})`)
const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'))

try {
  const result = await row.measure(dir)
  // maxRSS is the kernel's high-water mark for this process (KiB): no sampling overhead.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  console.log(JSON.stringify({ store, ...result, peak_rss_mb: peakRssMb }))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
