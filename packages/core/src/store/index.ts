export { MemoryStore } from './memory/memory_store.ts'
