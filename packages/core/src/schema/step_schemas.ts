/**
 * A registered step's `input` and `output` schemas (docs/validation.md): its handler wrapped so
 * the input it receives has passed `input` (as the schema outputs it) and the result it
 * returns has passed `output` before it is recorded. Where the handler runs — in the engine's
 * process or on a remote worker — the same wrapper runs, so a step validates the same way
 * wherever it is placed. A step without schemas keeps its handler as it is (no extra await).
 */
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { isStandardSchema, validated } from './validate.ts'
import type { StepHandler } from '../execution/types.ts'

export interface StepSchemas {
  /** Checks (and may transform) the step's input before the handler runs. */
  input?: StandardSchemaV1
  /** Checks (and may transform) the handler's result before it is recorded. */
  output?: StandardSchemaV1
}

/** Throws E_INVALID_ARGUMENT for a schema option that is not a Standard Schema. */
export function checkStepSchemas(name: string, schemas: StepSchemas): void {
  for (const field of ['input', 'output'] as const) {
    const schema = schemas[field]
    if (schema !== undefined && !isStandardSchema(schema))
      throw new InvalidArgumentError(
        `step "${name}": ${field} must be a Standard Schema (an object with ~standard.validate: VineJS, Zod, Valibot, ArkType, …)`,
        { details: { step: name, option: field } },
      )
  }
}

export function schemaCheckedHandler<I, O>(
  name: string,
  handler: StepHandler<I, O>,
  schemas: StepSchemas,
): StepHandler<I, O> {
  const { input, output } = schemas
  if (input === undefined && output === undefined) return handler
  const details = { step: name }
  return async (value, step) => {
    const checked = (await validated(input, value, `input of step "${name}"`, details)) as I
    const result = await handler(checked, step)
    return (await validated(output, result, `output of step "${name}"`, details)) as O
  }
}
