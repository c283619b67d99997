/**
 * Each message type's fields: required and optional, with their checks. An object with a field
 * not listed here is refused (a v1 message has exactly these; the format grows by version).
 */
import {
  boolean,
  duration,
  epochMs,
  freeText,
  id,
  integer,
  list,
  literal,
  name,
  nullable,
  payload,
  taskId,
  type FieldCheck,
  MAX_DURATION_MS,
} from './fields.ts'
import type { WireMessageType } from './messages.ts'

export interface Shape {
  required: Readonly<Record<string, FieldCheck | Shape | Variants>>
  optional?: Readonly<Record<string, FieldCheck | Shape>>
}

/** An object told apart by one field (`status`), each value with its own shape. */
export interface Variants {
  by: string
  shapes: Readonly<Record<string, Shape>>
}

const ATTEMPT = {
  taskId,
  runId: id,
  seq: integer(0),
  attempt: integer(1, MAX_DURATION_MS),
}

const ERROR: Shape = {
  required: { name: freeText, message: freeText },
  optional: {
    code: freeText,
    stack: freeText,
    retryable: boolean,
    retryAfterMs: integer(0, MAX_DURATION_MS),
    detail: payload,
  },
}

export const SHAPES: Readonly<Record<WireMessageType, Shape>> = {
  task: {
    required: {
      v: literal(1),
      type: literal('task'),
      ...ATTEMPT,
      step: name,
      input: payload,
      requires: list(name),
      timeoutMs: nullable(duration),
      heartbeatIntervalMs: duration,
      dispatchedAt: epochMs,
    },
    optional: { traceparent: name },
  },
  result: {
    required: {
      v: literal(1),
      type: literal('result'),
      ...ATTEMPT,
      workerId: id,
      startedAt: epochMs,
      finishedAt: epochMs,
      outcome: {
        by: 'status',
        shapes: {
          completed: { required: { status: literal('completed'), output: payload } },
          failed: { required: { status: literal('failed'), error: ERROR } },
        },
      },
    },
    optional: { logs: payload },
  },
  heartbeat: {
    required: {
      v: literal(1),
      type: literal('heartbeat'),
      ...ATTEMPT,
      workerId: id,
      at: epochMs,
    },
    optional: { progress: payload, logs: payload },
  },
  announce: {
    required: {
      v: literal(1),
      type: literal('announce'),
      workerId: id,
      protocols: list(integer(1, 1000), 1),
      host: name,
      pid: nullable(integer(0, MAX_DURATION_MS)),
      runtime: name,
      steps: list(name),
      capabilities: list(name),
      concurrency: {
        required: { mode: literal('fixed', 'adaptive'), limit: integer(0, 1_000_000) },
        optional: { min: integer(0, 1_000_000), max: integer(0, 1_000_000) },
      },
      inFlight: integer(0, 1_000_000),
      startedAt: epochMs,
      at: epochMs,
    },
    optional: { leaving: boolean },
  },
}
