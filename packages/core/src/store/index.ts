export { MemoryStore } from './memory/memory_store.ts'
export { encodeCursor, decodeCursor, type CursorPosition } from './run_cursor.ts'
