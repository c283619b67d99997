/**
 * The Ace commands of @cairn/adonis, for adonisrc.ts:
 *
 *   commands: [() => import('@cairn/adonis/commands')]
 *
 * Written by hand because the package ships TypeScript source with no build step (a build
 * would generate this loader with `adonis-kit index`). A new command is one file in this
 * directory and one entry in COMMANDS.
 */
import type { BaseCommand } from '@adonisjs/core/ace'
import type { CommandMetaData } from '@adonisjs/core/types/ace'
import DurableWork from './durable_work.ts'
import DurableWorkerCommand from './durable_worker.ts'
import DurableWorkers from './durable_workers.ts'
import DurableQueues from './durable_queues.ts'
import DurableRuns from './durable_runs.ts'
import DurableCancel from './durable_cancel.ts'
import DurableRetry from './durable_retry.ts'
import DurableDelete from './durable_delete.ts'
import DurablePurge from './durable_purge.ts'
import DurableReplay from './durable_replay.ts'
import DurableSchedules from './durable_schedules.ts'
import MakeStep from './make_step.ts'
import MakeWorkflow from './make_workflow.ts'

const COMMANDS: (typeof BaseCommand)[] = [
  DurableWork,
  DurableWorkerCommand,
  DurableWorkers,
  DurableQueues,
  DurableRuns,
  DurableRetry,
  DurableCancel,
  DurableDelete,
  DurablePurge,
  DurableReplay,
  DurableSchedules,
  MakeWorkflow,
  MakeStep,
]

export async function getMetaData(): Promise<CommandMetaData[]> {
  return COMMANDS.map((command) => command.serialize())
}

export async function getCommand(metaData: CommandMetaData): Promise<typeof BaseCommand | null> {
  return COMMANDS.find((command) => command.commandName === metaData.commandName) ?? null
}
