/**
 * Part of `npm run build`: tsc emits stubs/main.js (which says where the stubs are) but not the
 * `.stub` templates beside it, which `node ace configure` and the make:* commands read at run
 * time. Copies them to dist/stubs, keeping their folders.
 */
import { cpSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const from = fileURLToPath(new URL('../stubs/', import.meta.url))
const to = fileURLToPath(new URL('../dist/stubs/', import.meta.url))

cpSync(from, to, {
  recursive: true,
  filter: (source) => !source.endsWith('.ts'),
})
