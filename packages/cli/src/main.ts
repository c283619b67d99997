/**
 * `cairn <command> [options]`: parses the command line (node:util parseArgs), runs the command
 * and turns any failure into `E_CODE: message` on stderr with exit code 1 (2 for bad usage),
 * every password of the store and transport URLs scrubbed from what is printed.
 */
import { parseArgs } from 'node:util'
import { CairnError } from '@cairn/core'
import type { Command, Io, ParsedArgs } from './command.ts'
import { COMMANDS, findCommand, mainHelp } from './commands/index.ts'
import { scrub, secretsOf } from './store/redact.ts'
import { UsageError } from './usage_error.ts'

export async function main(argv: readonly string[], io: Io): Promise<number> {
  const secrets = [
    ...secretsOf(argument(argv, 'store') ?? io.env.CAIRN_STORE),
    ...secretsOf(argument(argv, 'transport') ?? io.env.CAIRN_TRANSPORT),
  ]
  const safe: Io = {
    ...io,
    out: (text) => io.out(scrub(text, secrets)),
    err: (text) => io.err(scrub(text, secrets)),
  }
  try {
    return await dispatch(argv, safe)
  } catch (error) {
    return report(error, safe)
  }
}

async function dispatch(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' && rest[0] !== undefined ? findCommand(rest[0]) : undefined
    io.out(topic?.help ?? mainHelp())
    return name === undefined ? 2 : 0
  }
  const command = findCommand(name)
  if (command === undefined)
    throw new UsageError(
      `unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(', ')})`,
    )
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help)
    return 0
  }
  return command.run(parse(command, rest), io)
}

function parse(command: Command, args: string[]): ParsedArgs {
  let parsed: ParsedArgs
  try {
    parsed = parseArgs({ args, options: command.options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(`cairn ${command.name}: ${(error as Error).message}`)
  }
  if (parsed.positionals.length !== command.positionals.length) {
    const expected = command.positionals.map((p) => `<${p}>`).join(' ') || 'no arguments'
    throw new UsageError(
      `cairn ${command.name}: expected ${expected}, got ${parsed.positionals.length} argument(s)`,
    )
  }
  return parsed
}

function report(error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`${error.code}: ${error.message}\nRun "cairn --help" for usage.`)
    return 2
  }
  if (CairnError.isCairnError(error)) io.err(`${error.code}: ${error.message}`)
  else io.err(`E_UNKNOWN: ${error instanceof Error ? error.message : String(error)}`)
  return 1
}

/**
 * A --store or --transport value (URLs that may carry a password), found before parsing so even
 * a parse error's text gets scrubbed.
 */
function argument(argv: readonly string[], name: string): string | undefined {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (at === -1) return undefined
  const arg = argv[at] as string
  return arg.startsWith(`--${name}=`) ? arg.slice(`--${name}=`.length) : argv[at + 1]
}
