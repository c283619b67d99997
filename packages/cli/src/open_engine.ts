/**
 * The engine every command works through: over the `--store` (or CAIRN_STORE) store, with no
 * workflow registered and never driving — the CLI reads and changes runs, it never executes
 * one. Closed when the command is done.
 */
import { randomBytes } from 'node:crypto'
import { Engine, silentLogger, type Logger } from '@cairn/core'
import type { Io, ParsedArgs } from './command.ts'
import { openStoreFromUrl } from './store/open_store.ts'
import { UsageError } from './usage_error.ts'

export const STORE_OPTION = { store: { type: 'string' } } as const

export const STORE_HELP = `  --store <url>   SQLite file path, sqlite:<path>, file:<url>, postgres://…, postgresql://…,
                  mysql://… or mariadb://… (default: $CAIRN_STORE)`

/** The store URL given by --store, else $CAIRN_STORE; a usage error when neither is set. */
export function storeUrlOf(args: ParsedArgs, io: Io): string {
  const url = (args.values.store as string | undefined) ?? io.env.CAIRN_STORE
  if (url === undefined || url === '')
    throw new UsageError('--store <url> is required (or set CAIRN_STORE)')
  return url
}

export interface EngineRole {
  /** Prefix of the engine's instance id (what a store's lease columns would show). */
  name: string
  /** Default: silent (a command prints its own result and error). */
  logger?: Logger
}

/** Opens the engine over the command's store, runs `use`, and closes both whatever happens. */
export async function withEngine<T>(
  args: ParsedArgs,
  io: Io,
  use: (engine: Engine) => Promise<T>,
  role: EngineRole = { name: 'cairn-cli' },
): Promise<T> {
  const store = await openStoreFromUrl(storeUrlOf(args, io))
  const engine = new Engine({
    store,
    logger: role.logger ?? silentLogger,
    instanceId: `${role.name}-${randomBytes(4).toString('hex')}`,
  })
  try {
    return await use(engine)
  } finally {
    await closeEngine(engine)
  }
}

/**
 * Closes the engine and its store. The engine closes only a store it opened itself; this one
 * was opened before it (to report a bad URL first), and an open pool would keep the process
 * alive for seconds after the command is done. StateStore.close is idempotent.
 */
async function closeEngine(engine: Engine): Promise<void> {
  await engine.close()
  await engine.store.close()
}
