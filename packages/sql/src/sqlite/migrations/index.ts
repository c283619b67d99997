import { initial } from './001_initial.ts'
import { inbox } from './002_inbox.ts'
import { children } from './003_children.ts'
import { continuations } from './004_continuations.ts'
import { events } from './005_events.ts'
import { searchAttributes } from './006_search_attributes.ts'
import { lineage } from './007_lineage.ts'
import { checkpointInput } from './008_checkpoint_input.ts'
import { wakeOn } from './009_wake_on.ts'
import { blocked } from './010_blocked.ts'
import { stepWorker } from './011_step_worker.ts'
import { admission } from './012_admission.ts'
import { priority } from './013_priority.ts'
import { queues } from './014_queues.ts'
import { queueRates } from './015_queue_rates.ts'
import { runQueue } from './016_run_queue.ts'
import { eventBatches } from './017_event_batches.ts'
import { recoveries } from './018_recoveries.ts'
import { schedules } from './019_schedules.ts'
import { retention } from './020_retention.ts'
import { stepLogs } from './021_step_logs.ts'
import { queueLeases } from './022_queue_leases.ts'
import type { Migration } from './migration.ts'

export type { Migration } from './migration.ts'

/** Every migration, in revision order. Append only. */
export const migrations: readonly Migration[] = [
  initial,
  inbox,
  children,
  continuations,
  events,
  searchAttributes,
  lineage,
  checkpointInput,
  wakeOn,
  blocked,
  stepWorker,
  admission,
  priority,
  queues,
  queueRates,
  runQueue,
  eventBatches,
  recoveries,
  schedules,
  retention,
  stepLogs,
  queueLeases,
]

export const latestRevision = migrations.length
