/**
 * @cairn/conformance: the suite every StateStore runs. Runner-agnostic: pass your runner's
 * `test` and a factory of fresh stores.
 *
 *   import { test } from 'node:test'
 *   storeConformance(test, { name: 'sqlite', create: async () => ({ store, cleanup }) })
 */
import { backlogTests } from './backlog.ts'
import { badInputTests } from './bad_inputs.ts'
import { batchFencingTests } from './batch_fencing.ts'
import { cancelTests } from './cancel.ts'
import { childrenTests } from './children.ts'
import { continuationTests } from './continuations.ts'
import { claimableFilterTests } from './claimable_filter.ts'
import { checkpointTests } from './checkpoints.ts'
import { checkpointInputTests } from './checkpoint_input.ts'
import { checkpointPageTests } from './checkpoint_page.ts'
import { claimTests } from './claims_leases.ts'
import { claimCounterTests } from './claim_counters.ts'
import { eventTests } from './events.ts'
import { eventBatchTests } from './event_batches.ts'
import { facetTests } from './facets.ts'
import { definer, type StoreFactory, type TestFn } from './harness.ts'
import { inboxTests } from './inbox.ts'
import { wakeOnTests } from './wake_on.ts'
import { blockedTests } from './blocked.ts'
import { listFilterTests } from './list_filters.ts'
import { leaseRecoveryTests } from './lease_recovery.ts'
import { listRunsTests } from './list_runs.ts'
import { listOrderTests } from './list_order.ts'
import { admissionTests } from './admission.ts'
import { admissionKeyTests } from './admission_keys.ts'
import { claimPriorityTests } from './claim_priority.ts'
import { parkTests } from './park_unpark.ts'
import { queueRateTests } from './queue_rates.ts'
import { queueTests } from './queues.ts'
import { queueLeaseTests } from './queue_leases.ts'
import { recoveryTests } from './recoveries.ts'
import { runQueueTests } from './run_queue.ts'
import { payloadTests } from './payloads.ts'
import { requeueTests } from './requeue.ts'
import { retentionTests } from './retention.ts'
import { runsCreateTests } from './runs_create.ts'
import { runSeedTests } from './run_seeds.ts'
import { runTagTests } from './run_tags.ts'
import { scheduleTests } from './schedules.ts'
import { searchAttributeTests } from './search_attributes.ts'
import { stepLogTests } from './step_logs.ts'
import { transitionTests } from './transitions.ts'

export type { StoreFactory, TestFn } from './harness.ts'
export {
  transportConformance,
  type TransportFactory,
  type TransportUnderTest,
} from './transport/index.ts'

export function storeConformance(test: TestFn, factory: StoreFactory): void {
  runsCreateTests(definer(test, factory, 'createRun'))
  batchFencingTests(definer(test, factory, 'applyBatch and fencing'))
  checkpointTests(definer(test, factory, 'checkpoints'))
  checkpointInputTests(definer(test, factory, 'checkpoint inputs'))
  claimTests(definer(test, factory, 'claims and leases'))
  claimPriorityTests(definer(test, factory, 'run priority'))
  runQueueTests(definer(test, factory, 'runs on a queue'))
  claimCounterTests(definer(test, factory, 'claim counters'))
  leaseRecoveryTests(definer(test, factory, 'lease recovery'))
  recoveryTests(definer(test, factory, 'recoveries and dead runs'))
  transitionTests(definer(test, factory, 'suspend, release, finish, park'))
  cancelTests(definer(test, factory, 'cancelRun'))
  requeueTests(definer(test, factory, 'requeueRun'))
  inboxTests(definer(test, factory, 'inbox (signals)'))
  wakeOnTests(definer(test, factory, 'inbox wake filters'))
  blockedTests(definer(test, factory, 'blocked runs'))
  childrenTests(definer(test, factory, 'child runs'))
  continuationTests(definer(test, factory, 'continueAsNew'))
  eventTests(definer(test, factory, 'broadcast events'))
  eventBatchTests(definer(test, factory, 'event accumulators'))
  scheduleTests(definer(test, factory, 'schedules'))
  retentionTests(definer(test, factory, 'retention'))
  stepLogTests(definer(test, factory, 'step logs'))
  parkTests(definer(test, factory, 'parkUnrunnable and unpark'))
  admissionTests(definer(test, factory, 'singleton admission'))
  admissionKeyTests(definer(test, factory, 'singleton keys'))
  queueTests(definer(test, factory, 'named queues'))
  queueLeaseTests(definer(test, factory, 'queue slot leases'))
  queueRateTests(definer(test, factory, 'queue rates'))
  listRunsTests(definer(test, factory, 'listRuns'))
  listFilterTests(definer(test, factory, 'listRuns filters'))
  listOrderTests(definer(test, factory, 'listRuns order'))
  claimableFilterTests(definer(test, factory, 'listRuns claimableBefore'))
  facetTests(definer(test, factory, 'facetRuns'))
  checkpointPageTests(definer(test, factory, 'loadCheckpointPage'))
  backlogTests(definer(test, factory, 'backlog'))
  badInputTests(definer(test, factory, 'bad inputs'))
  payloadTests(definer(test, factory, 'payloads and numbers'))
  searchAttributeTests(definer(test, factory, 'search attributes'))
  runTagTests(definer(test, factory, 'run tags and origin'))
  runSeedTests(definer(test, factory, 'createRun seed'))
}
