/**
 * Options `@adonis-agora/durable` users write that Cairn does not take: capabilities Cairn has
 * not built yet, and names Cairn spells differently. Each is refused by name (known_keys.ts),
 * and the message says which it is, so a migrated `eventBatch` fails at boot instead of quietly
 * starting one run per event. The migration guide lists the same keys
 * (docs/migrating-from-adonis-agora-durable.md); a key Cairn comes to honour leaves this table
 * when it joins its options type.
 */

export type ForeignOption =
  /** A capability of the seed package that Cairn does not have yet: what it does, briefly. */
  | { readonly notYet: string }
  /** Cairn has it under another name or shape: what to write instead (`use`: the key, if one). */
  | { readonly instead: string; readonly use?: string }

const GUIDE = 'docs/migrating-from-adonis-agora-durable.md'

/** The message tail for a refused seed key. */
export function foreignOptionMessage(key: string, option: ForeignOption): string {
  if ('notYet' in option)
    return `@adonis-agora/durable's ${JSON.stringify(key)} (${option.notYet}) is not in Cairn yet (${GUIDE})`
  return `${option.instead} (${GUIDE})`
}

type Table = Readonly<Record<string, ForeignOption>>

const CAPABILITY_ROUTING: ForeignOption = {
  notYet:
    "capability routing of a workflow's turns to workers; remote steps take requires (docs/remote-steps.md)",
}

/** `engine.register` options, and the keys of a `BaseWorkflow`'s `static workflow`. */
export const FOREIGN_WORKFLOW_OPTIONS: Table = {
  validateInput: {
    instead: 'Cairn checks the input at start with inputSchema, a Standard Schema',
    use: 'inputSchema',
  },
  requires: CAPABILITY_ROUTING,
  tags: { notYet: "default tags for every run; give a run's tags at start: { tags }" },
  executionTimeout: {
    instead: 'Cairn names it executionTimeoutMs, a number of milliseconds',
    use: 'executionTimeoutMs',
  },
  searchAttributesSchema: {
    instead: 'Cairn names it searchAttributes (the Standard Schema itself)',
    use: 'searchAttributes',
  },
}

/** `engine.start` options. */
export const FOREIGN_START_OPTIONS: Table = {
  namespace: { notYet: 'namespaces: pools of runs sharing one store' },
  searchAttributes: {
    notYet: 'search attributes set at start; set them with ctx.upsertSearchAttributes',
  },
}

/** A step's retry options in the seed's flat shape: Cairn nests them under `backoff`. */
const FLAT_BACKOFF: Table = {
  backoffMs: { instead: "Cairn's is backoff: { delay } (a Duration)", use: 'backoff.delay' },
  backoffMaxMs: {
    instead: "Cairn's is backoff: { maxDelay } (a Duration)",
    use: 'backoff.maxDelay',
  },
  jitter: {
    instead: "Cairn's is backoff: { jitter } (a fraction from 0 to 1)",
    use: 'backoff.jitter',
  },
}

/** `ctx.localStep` options. */
export const FOREIGN_LOCAL_STEP_OPTIONS: Table = FLAT_BACKOFF

/** `ctx.step` call options. */
export const FOREIGN_STEP_CALL_OPTIONS: Table = FLAT_BACKOFF

/** `engine.registerQueue` options and the entries of EngineOptions.queues. */
export const FOREIGN_QUEUE_OPTIONS: Table = {}

/** `defineStep` / `engine.registerStep` options and a `BaseStep`'s `static step`. */
export const FOREIGN_STEP_DEFINITION_OPTIONS: Table = {
  ...FLAT_BACKOFF,
  compensate: {
    instead:
      'Cairn takes compensate on the call: ctx.step(ref, input, { compensate: (output) => … })',
  },
}

/** `ctx.child` / `ctx.startChild` options: none left (the seed's `priority` is Cairn's too). */
export const FOREIGN_CHILD_OPTIONS: Table = {}

/** `engine.waitForRun` options. */
export const FOREIGN_WAIT_FOR_RUN_OPTIONS: Table = {
  terminal: {
    instead: "Cairn's waitForRun always waits until the run ends, never resolving on a suspend",
  },
}

/** `engine.signalWithStart`'s signal. */
export const FOREIGN_SIGNAL_WITH_START_SIGNAL: Table = {
  token: {
    instead: "Cairn's signals are addressed to the run: give the signal's name ({ name })",
    use: 'name',
  },
}
