/**
 * `node ace durable:queues`: the named queues of config/durable.ts as the store sees them
 * (engine.queueStats): each one's concurrency, the steps holding a slot and those waiting for
 * one (every process's), and how long the oldest has waited. As a table or as JSON. Reads
 * only: no run is touched.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { QUEUE_TABLE_HEAD, queueRow } from '../src/ace/queue_view.ts'

export default class DurableQueues extends DurableCommand {
  static override commandName = 'durable:queues'
  static override description = 'List the named queues: slots in use and steps waiting'
  static override help = [
    'The queues are those of config/durable.ts (`queues`); counts are read from the store, so they include every process.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare json?: boolean

  static {
    this.defineFlag('json', { type: 'boolean', description: 'Print JSON instead of a table' })
  }

  override async run(): Promise<void> {
    try {
      const engine = await this.engine()
      const queues = await engine.queueStats()
      if (this.json === true) return this.logger.log(JSON.stringify({ queues }))
      if (queues.length === 0) return this.logger.info('No queues in config/durable.ts')
      const table = this.ui.table()
      table.head(QUEUE_TABLE_HEAD)
      const now = engine.options.clock.now()
      for (const queue of queues) table.row(queueRow(queue, now))
      table.render()
    } catch (error) {
      this.refuse(error)
    }
  }
}
