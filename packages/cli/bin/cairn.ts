#!/usr/bin/env node
/** The `cairn` command (packages/cli/src/main.ts does the work). */
import { main } from '../src/main.ts'

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  // Only a long-running command takes over Ctrl-C; the others keep the default (exit at once).
  waitForStop: () =>
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    }),
})
