/** The bullmq transport passes the transport conformance suite on the machine's Redis. */
import { test } from 'node:test'
import { transportConformance } from '@cairn/conformance'
import { createUnderTest, redisUp } from './redis_fixture.ts'

if (redisUp) {
  transportConformance(test, {
    name: 'bullmq',
    create: async () => createUnderTest(),
  })
}
