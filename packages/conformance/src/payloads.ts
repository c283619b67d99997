/**
 * Payloads, names and numbers come back exactly as written: 4-byte UTF-8, JSON-escaped NUL
 * and lone surrogates (as the codec writes them), 1 MiB texts, integer times far above
 * 2^32. And what a store returns is a copy: callers cannot change stored state through it.
 */
import assert from 'node:assert/strict'
import type { CheckpointRecord, StateStore, WorkflowKey } from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, T0, checkpoint, createdRecord, newRun } from './fixtures.ts'
import { same, sameText, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  checkpoints,
  claim,
  expectApplied,
  list,
  mustGetRun,
  save,
  startRun,
} from './store_calls.ts'

const EMOJI_KEY: WorkflowKey = { workflow: 'wf-\u{1F600}-\u00fc', version: 'v-\u{1F680}' }
const EMOJI_ID = 'run-\u{1FAA8}-\u4e2d-\u{1F600}'

/** JSON text the codec would write for a string holding NUL and a lone surrogate. */
const ESCAPED = JSON.stringify({ nul: 'a\u0000b', lone: '\ud800x', pair: '\u{1F600}' })

/** About 1 MiB of JSON text mixing 1-, 2-, 3- and 4-byte characters. */
function bigPayload(seed: string): string {
  const unit = `${seed} a\u00e9\u4e2d\u{1F600}\\u0000 `
  return JSON.stringify(unit.repeat(Math.ceil((1 << 20) / Buffer.byteLength(unit))))
}

export function payloadTests(define: Define): void {
  define('4-byte UTF-8 in ids, names and payloads round-trips exactly', async (store) => {
    const run = {
      ...newRun(EMOJI_ID, { key: EMOJI_KEY }),
      input: JSON.stringify({ greeting: '\u{1F44B}\u{1F3FD}' }),
    }
    await apply(
      store,
      [{ type: 'createRun', run, claim: { owner: 'engine-\u{1F40C}', leaseMs: LEASE_MS } }],
      T0,
    )
    const fence = { runId: EMOJI_ID, epoch: 1 }
    const cp = checkpoint(EMOJI_ID, 0, { name: 'charge-\u{1F4B3}', output: '"\u{1F9FE}"' })
    await save(store, fence, cp, T0 + 1)
    const waitingOn = 'signal \u{1F514}'
    await apply(
      store,
      [{ type: 'suspendRun', fence, wakeAt: T0 + 2, waitingOn, inboxSeen: 0 }],
      T0 + 1,
    )
    const stored = await mustGetRun(store, EMOJI_ID)
    same(
      stored,
      {
        ...createdRecord(run, T0, { owner: 'engine-\u{1F40C}', leaseMs: LEASE_MS }),
        status: 'waiting',
        availableAt: T0 + 2,
        waitingOn,
        updatedAt: T0 + 1,
      },
      'the run read back',
    )
    same(await checkpoints(store, EMOJI_ID), [cp], 'the checkpoint read back')
    same(
      (await list(store, { workflow: EMOJI_KEY.workflow })).runs,
      [stored],
      'listRuns by an emoji workflow',
    )
    const claimed = await claim(store, { now: T0 + 2, runnable: [EMOJI_KEY] })
    same(
      claimed.claimed.map((r) => r.id),
      [EMOJI_ID],
      'claimRuns of an emoji workflow version',
    )
  })

  define('JSON-escaped NUL and lone surrogates are kept byte for byte', async (store) => {
    assert.ok(
      ESCAPED.includes('\\u0000') && ESCAPED.includes('\\ud800'),
      'fixture holds the escapes',
    )
    const run = { ...newRun('run-1'), input: ESCAPED }
    await apply(
      store,
      [{ type: 'createRun', run, claim: { owner: OWNER_A, leaseMs: LEASE_MS } }],
      T0,
    )
    const fence = { runId: 'run-1', epoch: 1 }
    await save(store, fence, checkpoint('run-1', 0, { output: ESCAPED, error: null }), T0 + 1)
    await save(
      store,
      fence,
      checkpoint('run-1', 1, { status: 'failed', output: null, error: ESCAPED }),
      T0 + 1,
    )
    await apply(
      store,
      [{ type: 'finishRun', fence, status: 'failed', output: null, error: ESCAPED }],
      T0 + 2,
    )
    const stored = await mustGetRun(store, 'run-1')
    sameText(stored.input, ESCAPED, 'run input')
    sameText(stored.error, ESCAPED, 'run error')
    const [first, second] = await checkpoints(store, 'run-1')
    sameText(first?.output, ESCAPED, 'checkpoint output')
    sameText(second?.error, ESCAPED, 'checkpoint error')
  })

  define('1 MiB payloads round-trip byte for byte', async (store) => {
    const input = bigPayload('input')
    const output = bigPayload('output')
    const stepOutput = bigPayload('step')
    assert.ok(Buffer.byteLength(input) >= 1 << 20, 'fixture is at least 1 MiB')
    await apply(
      store,
      [
        {
          type: 'createRun',
          run: { ...newRun('run-1'), input },
          claim: { owner: OWNER_A, leaseMs: LEASE_MS },
        },
      ],
      T0,
    )
    const fence = { runId: 'run-1', epoch: 1 }
    await save(store, fence, checkpoint('run-1', 0, { output: stepOutput }), T0 + 1)
    await apply(
      store,
      [{ type: 'finishRun', fence, status: 'completed', output, error: null }],
      T0 + 2,
    )
    const stored = await mustGetRun(store, 'run-1')
    sameText(stored.input, input, 'run input')
    sameText(stored.output, output, 'run output')
    sameText((await checkpoints(store, 'run-1'))[0]?.output, stepOutput, 'checkpoint output')
    sameText((await list(store, {})).runs[0]?.input, input, 'run input via listRuns')
  })

  define('times and epochs are exact integers far above 2^32', async (store) => {
    const far = 2 ** 52 + 1
    let fence = await startRun(store, 'run-1', T0, { leaseMs: 1 })
    for (let turn = 2; turn <= 6; turn++) {
      const result = await claim(store, { now: T0 + turn, leaseMs: 1 })
      same(
        result.claimed.map((r) => [r.leaseEpoch, r.turns]),
        [[turn, turn]],
        `claim ${turn}: epoch and turns`,
      )
      fence = { runId: 'run-1', epoch: turn }
    }
    await save(
      store,
      fence,
      checkpoint('run-1', 0, {
        status: 'waiting',
        kind: 'sleep',
        order: null,
        wakeAt: far,
        startedAt: far - 7,
        updatedAt: far - 3,
      }),
      T0 + 7,
    )
    expectApplied(
      await applyOne(
        store,
        { type: 'suspendRun', fence, wakeAt: far, waitingOn: 'sleep', inboxSeen: 0 },
        T0 + 7,
      ),
      'suspendRun',
    )
    const run = await mustGetRun(store, 'run-1')
    same(
      [run.availableAt, run.leaseEpoch, run.turns, run.createdAt],
      [far, 6, 6, T0],
      'availableAt, epoch, turns, createdAt',
    )
    const [row] = await checkpoints(store, 'run-1')
    same([row?.wakeAt, row?.startedAt, row?.updatedAt], [far, far - 7, far - 3], 'checkpoint times')
    same(
      await claim(store, { now: far - 1 }),
      { claimed: [], nextAvailableAt: far },
      'claim 1 ms before 2^52 + 1',
    )
  })

  define(
    'records handed out are copies, and the store keeps none of the caller objects',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const cp = checkpoint('run-1', 0)
      const written: CheckpointRecord = { ...cp }
      await save(store, fence, written, T0 + 1)
      written.output = '"changed by the caller"'
      const reason = { code: 'X', message: 'x', details: { nested: { n: 1 } } }
      await apply(store, [{ type: 'parkRun', fence, reason }], T0 + 2)
      reason.details.nested.n = 2
      const expected = await expectedAfterPark(store)
      await mutateEverything(store)
      same(
        await mustGetRun(store, 'run-1'),
        expected,
        'the run after callers changed what they got',
      )
      same(
        await checkpoints(store, 'run-1'),
        [cp],
        'the checkpoints after callers changed what they got',
      )
    },
  )
}

async function expectedAfterPark(store: StateStore) {
  const run = await mustGetRun(store, 'run-1')
  same(
    run.parkReason,
    { code: 'X', message: 'x', details: { nested: { n: 1 } } },
    'the stored park reason',
  )
  // A deep copy: if the store hands out live records, the mutations that follow must show.
  return structuredClone(run)
}

/** Changes every record the store returns (frozen records may refuse: that is fine too). */
async function mutateEverything(store: StateStore): Promise<void> {
  const tryMutate = (change: () => void) => {
    try {
      change()
    } catch {
      // A frozen record is as good as a copy.
    }
  }
  const run = await mustGetRun(store, 'run-1')
  tryMutate(() => Object.assign(run, { status: 'running', leaseEpoch: 99, input: '"x"' }))
  tryMutate(() => ((run.parkReason?.details as { nested: { n: number } }).nested.n = 3))
  const rows = await store.loadCheckpoints('run-1')
  tryMutate(() => Object.assign(rows[0] ?? {}, { status: 'retrying', output: '"x"' }))
  tryMutate(() => rows.pop())
  const page = await store.listRuns({})
  tryMutate(() => Object.assign(page.runs[0] ?? {}, { status: 'completed' }))
  const exists = await applyOne(store, { type: 'createRun', run: newRun('run-1') }, T0 + 3)
  if (exists.status === 'exists') tryMutate(() => Object.assign(exists.run, { status: 'failed' }))
}
