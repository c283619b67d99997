import { test } from 'node:test'
import { storeConformance } from '@cairn/conformance'
import { MemoryStore } from '../src/store/index.ts'

storeConformance(test, {
  name: 'memory',
  create: async () => ({ store: new MemoryStore(), cleanup: async () => {} }),
})
