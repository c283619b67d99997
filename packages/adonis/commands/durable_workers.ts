/**
 * `node ace durable:workers`: the remote-step workers heard on the app's transports
 * (engine.listWorkers), as a table or as JSON. Reads the transports only: no run is touched.
 */
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { WorkerInfo } from '@cairn/core'
import { DurableCommand } from '../src/ace/durable_command.ts'
import { workerRow, WORKER_TABLE_HEAD } from '../src/ace/worker_view.ts'

export default class DurableWorkers extends DurableCommand {
  static override commandName = 'durable:workers'
  static override description = 'List the workers serving remote steps on the app transports'
  static override help = [
    'A worker is listed while it announces itself (every 10 s by default); one that announced it leaves, or went silent longer than --seen-within ms, is not.',
  ]
  static override options: CommandOptions = { startApp: true }

  declare seenWithin?: number
  declare json?: boolean

  static {
    this.defineFlag('seenWithin', {
      type: 'number',
      description: 'Only workers heard within this many ms (default 30000)',
    })
    this.defineFlag('json', { type: 'boolean', description: 'Print JSON instead of a table' })
  }

  override async run(): Promise<void> {
    try {
      const engine = await this.engine()
      const workers: WorkerInfo[] = await engine.listWorkers(
        this.seenWithin === undefined ? {} : { seenWithinMs: this.seenWithin },
      )
      if (this.json === true) return this.logger.log(JSON.stringify({ workers }))
      if (workers.length === 0) return this.logger.info('No live workers')
      const table = this.ui.table()
      table.head(WORKER_TABLE_HEAD)
      const now = Date.now()
      for (const worker of workers) table.row(workerRow(worker, now))
      table.render()
    } catch (error) {
      this.refuse(error)
    }
  }
}
