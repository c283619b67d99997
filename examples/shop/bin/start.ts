/**
 * `npm start`: the shop as it runs in production, on one machine — the web server (bin/server.ts,
 * which drives checkout runs) and a worker (`node ace durable:worker`, which runs the charge
 * step, placed on the db transport). Both print here; SIGINT/SIGTERM stops both (each drains);
 * if one exits on its own, the other is stopped and the exit code is passed on.
 * Runs under the app's TypeScript loader, from this directory.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const APP_ROOT = fileURLToPath(new URL('../', import.meta.url))
const LOADER = '--import=@poppinss/ts-exec'

const children = [
  start('server', [LOADER, 'bin/server.ts']),
  // Hold a task 10 s without a heartbeat (they go every 5 s): a worker killed mid-charge has
  // its task taken by the next one that quickly.
  start('worker', [LOADER, 'bin/console.ts', 'durable:worker', '--heartbeat-timeout=10000']),
]
let stopping = false

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    stopping = true
    for (const child of children) if (child.exitCode === null) child.kill(signal)
  })

function start(name: string, args: string[]): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: APP_ROOT, stdio: 'inherit' })
  child.once('exit', (code, signal) => {
    if (!stopping) {
      stopping = true
      console.error(`shop ${name} exited (${signal ?? code}); stopping the other process`)
      for (const other of children)
        if (other !== child && other.exitCode === null) other.kill('SIGTERM')
      process.exitCode = code ?? 1
    }
  })
  return child
}
