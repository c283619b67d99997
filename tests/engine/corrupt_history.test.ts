/**
 * A corrupt checkpoint row (issue 16): a recorded outcome whose text the codec cannot read, on
 * each SQL store (written behind the store's back, as a bad migration or a hand edit would).
 * The run cannot be loaded; it must end `dead` with the reason after `maxRecoveryAttempts`
 * takeovers — never claimed and dropped in a hot loop, never running a completed step again.
 */
import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import pg from 'pg'
import { JsonCodec, type Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'
import { MYSQL_URL, PG_URL } from '../helpers/services.ts'
import type { StoreLocation } from '../helpers/stores.ts'

const LEASE = 2_000
const BROKEN = '{"this is not": codec text'

/** Overwrites the output of the run's checkpoint at `seq`, straight in its database. */
async function corrupt(location: StoreLocation, runId: string, seq: number): Promise<void> {
  const set = (runs: string, checkpoints: string, key: string, p: (n: number) => string) =>
    `UPDATE ${checkpoints} SET output = ${p(1)} WHERE seq = ${p(2)}
      AND run_key = (SELECT ${key} FROM ${runs} WHERE id = ${p(3)})`
  if (location.dialect === 'sqlite') {
    const db = new DatabaseSync(location.path)
    try {
      const text = set('cairn_runs', 'cairn_checkpoints', 'key', () => '?')
      assert.equal(db.prepare(text).run(BROKEN, seq, runId).changes, 1)
    } finally {
      db.close()
    }
  } else if (location.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      const q = (t: string) => `"${location.schema}".${t}`
      const text = set(q('cairn_runs'), q('cairn_checkpoints'), 'key', (n) => `$${n}`)
      assert.equal((await client.query(text, [BROKEN, seq, runId])).rowCount, 1)
    } finally {
      await client.end()
    }
  } else {
    const mysql = await import('mysql2/promise')
    const conn = await mysql.createConnection({ uri: MYSQL_URL, database: location.database })
    try {
      const text = set('cairn_runs', 'cairn_checkpoints', '`key`', () => '?')
      const [result] = await conn.query(text, [BROKEN, seq, runId])
      assert.equal((result as { affectedRows: number }).affectedRows, 1)
    } finally {
      await conn.end()
    }
  }
}

async function engineOn(env: Env, ledger: string[]): Promise<Engine> {
  // The history is read on the wake (no run cache: a cached run would not read it at all).
  const engine = await env.engine({ leaseMs: LEASE, maxRecoveryAttempts: 2, maxCachedRuns: 0 })
  engine.register('order', 1, async (ctx) => {
    await ctx.localStep('reserve', () => ledger.push('reserve'))
    await ctx.sleep('1h')
    return ctx.localStep('ship', () => ledger.push('ship'))
  })
  return engine
}

eachStore('corrupt history', (test) => {
  test(
    'a checkpoint the codec cannot read ends the run dead, after its recoveries, running nothing',
    async (env) => {
      const ledger: string[] = []
      const engine = await engineOn(env, ledger)
      const { runId } = await engine.start('order', null)
      await env.settle()
      assert.equal((await engine.getRun(runId))?.status, 'waiting')
      await corrupt(env.handle.location as StoreLocation, runId, 0)
      await env.skip(3_600_000) // the sleep is over: the run is claimed, and cannot be loaded
      for (let i = 0; i < 10 && (await engine.getRun(runId))?.status !== 'dead'; i++)
        await env.skip(LEASE + 1)
      const run = await engine.getRun(runId)
      assert.equal(run?.status, 'dead', `ended dead, not ${run?.status}`)
      assert.equal(run?.error?.code, 'E_RUN_DEAD')
      assert.ok((run?.turns ?? 0) <= 5, `claimed ${run?.turns} times: a bounded number, no loop`)
      assert.deepEqual(ledger, ['reserve'], 'the completed step never ran again; ship never ran')
    },
    (store) => ['sqlite', 'postgres', 'mysql'].includes(store),
  )
})

/** A codec that cannot read a payload holding POISON: a message written under another codec. */
class PoisonCodec extends JsonCodec {
  override decode(text: string): unknown {
    if (text.includes('POISON')) throw new SyntaxError('poisoned payload')
    return super.decode(text)
  }
}

eachStore('unreadable messages', (test) => {
  test('a child outcome the codec cannot read ends the parent dead, never as a caught error', async (env) => {
    const engine = await env.engine({
      codec: new PoisonCodec(),
      leaseMs: LEASE,
      maxRecoveryAttempts: 2,
    })
    engine.register('kid', 1, async (ctx) => {
      await ctx.sleep('1m')
      return 'POISON'
    })
    engine.register('parent', 1, async (ctx) => {
      try {
        return await ctx.child<string>('kid', null)
      } catch (error) {
        return `caught: ${String(error)}`
      }
    })
    const { runId } = await engine.start('parent', null)
    await env.settle()
    await env.skip(61_000)
    for (let i = 0; i < 8 && (await engine.getRun(runId))?.status !== 'dead'; i++)
      await env.skip(LEASE + 1)
    const run = await engine.getRun(runId)
    assert.equal(run?.status, 'dead', `ended ${run?.status} ${JSON.stringify(run?.output)}`)
    assert.equal(run?.error?.code, 'E_RUN_DEAD')
  })

  test('met by a busy turn, it ends the run dead too, never parked waiting on nothing', async (env) => {
    const engine = await env.engine({
      codec: new PoisonCodec(),
      leaseMs: LEASE,
      maxRecoveryAttempts: 2,
    })
    const { promise: gate, resolve: open } = Promise.withResolvers<void>()
    engine.register('kid', 1, async () => 'POISON')
    engine.register('parent', 1, async (ctx) => {
      const [kid] = await Promise.all([
        ctx.child<string>('kid', null),
        ctx.localStep('long', () => gate.then(() => 'done')),
      ])
      return kid
    })
    const { runId } = await engine.start('parent', null)
    await env.settle()
    open()
    await env.settle()
    for (let i = 0; i < 10 && (await engine.getRun(runId))?.status !== 'dead'; i++)
      await env.skip(LEASE + 1)
    const run = await engine.getRun(runId)
    assert.equal(run?.status, 'dead', `ended ${run?.status} ${JSON.stringify(run?.parkReason)}`)
  })
})
