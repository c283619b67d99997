/** The memory transport passes the transport conformance suite. */
import { test } from 'node:test'
import type { RefusedMessage } from '@cairn/core/contracts'
import { createMemoryTransport } from '@cairn/core/testing'
import { transportConformance } from '@cairn/conformance'

transportConformance(test, {
  name: 'memory',
  create: async () => {
    const refused: RefusedMessage[] = []
    const transport = createMemoryTransport({ onRefused: (r) => refused.push(r) })
    return {
      engine: () => transport.engine(),
      worker: () => transport.worker(),
      refused,
      publishRawTask: async (taskId, text, step) => transport.broker.publishRaw(taskId, text, step),
      sendRawReport: async (text) => transport.broker.reportRaw(text),
      cleanup: async () => {},
    }
  },
})
