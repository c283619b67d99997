/**
 * What make:workflow and make:step share: write one file from a stub of this package, and
 * refuse to overwrite one that exists unless --force.
 */
import { BaseCommand } from '@adonisjs/core/ace'
import { stubsRoot } from '../stubs/main.ts'

export abstract class MakeGeneratedFile extends BaseCommand {
  /** The stub, relative to this package's stubs directory. */
  protected abstract stubPath: string

  declare name: string
  declare force: boolean | undefined

  static {
    this.defineArgument('name', { type: 'string', description: 'Name of the class' })
    this.defineFlag('force', {
      type: 'boolean',
      alias: 'f',
      description: 'Overwrite the file if it exists',
    })
  }

  override async run(): Promise<void> {
    const codemods = await this.createCodemods()
    codemods.overwriteExisting = this.force === true
    const output = await codemods.makeUsingStub(stubsRoot, this.stubPath, {
      flags: this.parsed.flags,
      entity: this.app.generators.createEntity(this.name),
    })
    // Codemods only log a skipped file; a refusal must fail the command, so scripts see it.
    if (output.status === 'skipped') {
      const file = this.app.relativePath(output.destination)
      this.logger.error(`${file} already exists: use --force to overwrite it`)
      this.exitCode = 1
    }
  }
}
