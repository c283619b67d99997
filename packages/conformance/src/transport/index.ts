/**
 * The transport conformance suite: what every transport (memory, db, bullmq, queue) does the
 * same way. Runner-agnostic like the store suite:
 *
 *   transportConformance(test, { name: 'bullmq', create: async () => ({ engine, worker, … }) })
 */
import type { TestFn } from '../harness.ts'
import { announcementTests } from './announcements.ts'
import { deliveryTests } from './delivery.ts'
import { fanOutTests } from './fan_out.ts'
import { transportDefiner, type TransportFactory } from './harness.ts'
import { holdTests } from './holds.ts'
import { poisonTests } from './poison.ts'
import { reportTests } from './reports.ts'
import { withdrawalTests } from './withdrawal.ts'
import { depthTests } from './depth.ts'

export type { TransportFactory, TransportUnderTest } from './harness.ts'

export function transportConformance(test: TestFn, factory: TransportFactory): void {
  deliveryTests(transportDefiner(test, factory, 'delivery'))
  holdTests(transportDefiner(test, factory, 'holds'))
  reportTests(transportDefiner(test, factory, 'reports'))
  fanOutTests(transportDefiner(test, factory, 'fan-out'))
  poisonTests(transportDefiner(test, factory, 'poison'))
  announcementTests(transportDefiner(test, factory, 'announcements'))
  withdrawalTests(transportDefiner(test, factory, 'withdrawal'))
  depthTests(transportDefiner(test, factory, 'depth'))
}
