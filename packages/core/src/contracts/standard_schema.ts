/**
 * The Standard Schema interface (https://standardschema.dev, v1): what zod, valibot, arktype
 * and others expose as `schema['~standard']`. Types only, written out here (the spec's
 * namespace flattened into plain names) so Cairn depends on none of them: any object with a
 * conforming `~standard.validate` works.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>
}

export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1
  readonly vendor: string
  /** May answer synchronously or with a promise. */
  readonly validate: (
    value: unknown,
  ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>
  readonly types?: { readonly input: Input; readonly output: Output } | undefined
}

export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> }

export interface StandardSchemaIssue {
  readonly message: string
  /** Where in the value: keys, or segments carrying a key. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}
