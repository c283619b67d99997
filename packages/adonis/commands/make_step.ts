/**
 * `node ace make:step <name>`: app/steps/<name>_step.ts, a BaseStep class with its
 * `static step` and a `run` to fill in. `billing/charge` goes to a subdirectory.
 */
import { MakeGeneratedFile } from './make_generated_file.ts'

export default class MakeStep extends MakeGeneratedFile {
  static override commandName = 'make:step'
  static override description = 'Create a step class in app/steps'

  protected stubPath = 'make/step/main.stub'
}
