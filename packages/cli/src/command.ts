/**
 * The shape of one `cairn` subcommand: its help text, its options (node:util parseArgs
 * config) and what it does with them. Types only.
 */
import type { ParseArgsOptionsConfig } from 'node:util'

/** Where a command writes; the bin passes process streams and environment. */
export interface Io {
  out(text: string): void
  err(text: string): void
  env: Record<string, string | undefined>
  /** Resolves when the user asks a long-running command (dashboard) to stop (Ctrl-C, SIGTERM). */
  waitForStop(): Promise<void>
}

export interface ParsedArgs {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>
  positionals: string[]
}

export interface Command {
  name: string
  /** One line for `cairn --help`. */
  summary: string
  /** The full `cairn <name> --help` text. */
  help: string
  options: ParseArgsOptionsConfig
  /** Positional arguments expected (exactly). */
  positionals: string[]
  /** Resolves with the exit code; throws Cairn errors (exit 1) or UsageError (exit 2). */
  run(args: ParsedArgs, io: Io): Promise<number>
}
