/**
 * The `cairn` command run in this process (the same `main` the bin runs, a hundred times
 * faster than a child process) against a store that does not exist: an option it refuses is a
 * usage error (exit 2) before any store is opened; one it takes gets as far as opening the
 * store and fails there ("no SQLite file", exit 1).
 */
import { main } from '../src/main.ts'

export async function cairnWithoutStore(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = ''
  const code = await main([...args, '--store', '/nonexistent/cairn-probe.db'], {
    out: () => undefined,
    err: (text) => (stderr += text),
    env: {},
    waitForStop: () => new Promise(() => undefined),
  })
  return { code, stderr }
}
