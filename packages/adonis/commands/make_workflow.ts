/**
 * `node ace make:workflow <name>`: app/workflows/<name>_workflow.ts, a BaseWorkflow class
 * with its `static workflow` and a `run` to fill in. `billing/invoice` goes to a subdirectory.
 */
import { MakeGeneratedFile } from './make_generated_file.ts'

export default class MakeWorkflow extends MakeGeneratedFile {
  static override commandName = 'make:workflow'
  static override description = 'Create a workflow class in app/workflows'

  protected stubPath = 'make/workflow/main.stub'
}
