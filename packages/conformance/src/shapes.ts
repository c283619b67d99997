/**
 * Field-type checks for records a store hands back. They catch what value comparisons
 * explain badly: a BIGINT coming back as a string or bigint, a time in seconds, undefined
 * where null belongs.
 */
import { RUN_STATUSES } from '@cairn/core'
import assert from 'node:assert/strict'
import type { CheckpointRecord, RunRecord } from '@cairn/core/contracts'

const CHECKPOINT_STATUSES = ['completed', 'failed', 'retrying', 'waiting']
const CHECKPOINT_KINDS = [
  'local',
  'step',
  'sleep',
  'side_effect',
  'patch',
  'signal',
  'breakpoint',
  'set_event',
  'child',
  'webhook',
  'update',
  'search_attrs',
  'transaction',
]

type Check = (value: unknown) => boolean

const text: Check = (value) => typeof value === 'string'
const textOrNull: Check = (value) => value === null || typeof value === 'string'
const integer: Check = (value) => Number.isSafeInteger(value)
const integerOrNull: Check = (value) => value === null || Number.isSafeInteger(value)
const workerOrNull: Check = (value) => {
  if (value === null) return true
  if (typeof value !== 'object') return false
  const { id, startedAt, finishedAt } = value as Record<string, unknown>
  return (
    typeof id === 'string' && Number.isSafeInteger(startedAt) && Number.isSafeInteger(finishedAt)
  )
}
const oneOf =
  (allowed: readonly string[]): Check =>
  (value) =>
    typeof value === 'string' && allowed.includes(value)
const reasonOrNull: Check = (value) =>
  value === null ||
  (typeof value === 'object' &&
    text((value as Record<string, unknown>).code) &&
    text((value as Record<string, unknown>).message))

const RUN_FIELDS: Record<keyof RunRecord, Check> = {
  id: text,
  workflow: text,
  version: text,
  status: oneOf(RUN_STATUSES),
  input: text,
  output: textOrNull,
  error: textOrNull,
  parkReason: reasonOrNull,
  waitingOn: textOrNull,
  createdAt: integer,
  updatedAt: integer,
  finishedAt: integerOrNull,
  availableAt: integerOrNull,
  leaseOwner: textOrNull,
  leaseEpoch: integer,
  turns: integer,
  recoveries: integer,
  inboxSeq: integer,
  parentRunId: textOrNull,
  parentSeq: integerOrNull,
  continuedFrom: textOrNull,
  continuedTo: textOrNull,
  tags: (value) => Array.isArray(value) && value.every(text),
  origin: (value) =>
    value === null ||
    (typeof value === 'object' &&
      oneOf(['retry', 'fork'])((value as Record<string, unknown>).kind) &&
      text((value as Record<string, unknown>).runId) &&
      integerOrNull((value as Record<string, unknown>).fromSeq)),
  admission: (value) =>
    value === null ||
    (typeof value === 'object' &&
      text((value as Record<string, unknown>).scope) &&
      text((value as Record<string, unknown>).key)),
  priority: (value) => integer(value) && (value as number) >= -1000 && (value as number) <= 1000,
  queue: textOrNull,
}

const CHECKPOINT_FIELDS: Record<keyof CheckpointRecord, Check> = {
  runId: text,
  seq: integer,
  name: text,
  kind: oneOf(CHECKPOINT_KINDS),
  status: oneOf(CHECKPOINT_STATUSES),
  attempts: integer,
  order: integerOrNull,
  input: textOrNull,
  output: textOrNull,
  error: textOrNull,
  wakeAt: integerOrNull,
  startedAt: integer,
  updatedAt: integer,
  worker: workerOrNull,
}

export function checkRunShape(run: unknown, where: string): void {
  checkFields(run, RUN_FIELDS, where)
}

export function checkCheckpointShape(row: unknown, where: string): void {
  checkFields(row, CHECKPOINT_FIELDS, where)
}

function checkFields(value: unknown, fields: Record<string, Check>, where: string): void {
  assert.ok(
    typeof value === 'object' && value !== null,
    `${where}: expected an object, got ${String(value)}`,
  )
  const record = value as Record<string, unknown>
  for (const [field, check] of Object.entries(fields)) {
    const actual = record[field]
    if (!check(actual)) {
      const shown = typeof actual === 'bigint' ? `${actual}n` : JSON.stringify(actual)
      assert.fail(`${where}: field ${field} has a wrong type or value: ${shown} (${typeof actual})`)
    }
  }
}
