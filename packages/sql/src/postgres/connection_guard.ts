/**
 * A permanent 'error' listener on every connection a pool opens. node-postgres's pool removes
 * its own listener just before it hands a connection out, and the caller's listener is attached
 * a microtask later; a backend terminated as the connection starts (ReadyForQuery and the FATAL
 * error parsed from one TCP chunk) emits 'error' in between, which with no listener crashes the
 * process. This listener closes that window and remembers the failure, so the checkout that
 * receives the connection knows it is broken and destroys it instead of reusing it.
 */
const failures = new WeakMap<object, Error>()

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown
}

/** For a pool's 'connect' event: guards the new connection for its whole life. */
export function guardConnection(client: ErrorEmitter): void {
  client.on('error', (error) => {
    if (!failures.has(client)) failures.set(client, error)
  })
}

/** The error a guarded connection failed with, or null while it is healthy. */
export function connectionFailure(client: object): Error | null {
  return failures.get(client) ?? null
}
