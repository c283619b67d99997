/**
 * The commands loader adonisrc.ts lists (`() => import('@cairn/adonis/commands')`). The
 * package ships TypeScript source with no build step, so this hand-written list stands in
 * for the `commands.json` index a build would generate.
 */
import type { BaseCommand } from '@adonisjs/core/ace'
import type { CommandMetaData } from '@adonisjs/core/types/ace'
import MakeStep from './make_step.ts'
import MakeWorkflow from './make_workflow.ts'

const commands: Array<typeof BaseCommand> = [MakeWorkflow, MakeStep]

export async function getMetaData(): Promise<CommandMetaData[]> {
  return commands.map((command) => command.serialize())
}

export async function getCommand(metaData: {
  commandName: string
}): Promise<typeof BaseCommand | null> {
  return commands.find((command) => command.commandName === metaData.commandName) ?? null
}
