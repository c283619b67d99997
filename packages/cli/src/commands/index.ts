/** Every `cairn` subcommand, in the order `cairn --help` lists them. */
import type { Command } from '../command.ts'
import { cancelCommand } from './cancel.ts'
import { dashboardCommand } from './dashboard.ts'
import { deleteCommand } from './delete.ts'
import { purgeCommand } from './purge.ts'
import { retryCommand } from './retry.ts'
import { runCommand } from './run.ts'
import { runsCommand } from './runs.ts'
import { schedulesCommand } from './schedules.ts'
import { workerCommand } from './worker.ts'
import { workersCommand } from './workers.ts'

export const COMMANDS: readonly Command[] = [
  dashboardCommand,
  runsCommand,
  runCommand,
  retryCommand,
  cancelCommand,
  deleteCommand,
  purgeCommand,
  schedulesCommand,
  workerCommand,
  workersCommand,
]

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name)
}

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return `Usage: cairn <command> [options]

Operate Cairn runs in a store: serve the dashboard, list, inspect, retry, cancel and delete
runs, list, pause and resume schedules; run remote steps (cairn worker) and list their fleet
(cairn workers).

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Every command but worker and workers takes --store <url> (or $CAIRN_STORE): a SQLite file path, sqlite:<path>,
file:<url>, postgres://…, postgresql://…, mysql://… or mariadb://…. Passwords are never printed;
prefer $CAIRN_STORE to keep one out of the process list.

Run "cairn <command> --help" for a command's options.`
}
