export { MemoryStore } from './memory/memory_store.ts'
export { checkFinishOp } from './finish_check.ts'
export { checkRequeueRequest } from './requeue_check.ts'
export { encodeCursor, decodeCursor, type CursorPosition } from './run_cursor.ts'
