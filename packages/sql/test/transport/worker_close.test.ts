/**
 * The db transport's worker half closes whatever the database does, on Postgres and MariaDB,
 * through a relay that stops answering (a crashed host, a network cut: no error, no reset — a
 * statement or a goodbye is simply never acknowledged). Close gives up its hand-back (reported
 * to onError; the hold lapses and the task is delivered again) and cuts its connections, so
 * none keeps the worker's process alive. A close that hung would be failed by the test's
 * timeout, not by a measured duration.
 */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TaskMessage } from '@cairn/core/wire'
import { MYSQL_URL, PG_URL } from '../../../../tests/helpers/services.ts'
import { closingWorkerScript, startScript } from '../../../worker/test/script_process.ts'
import { TcpRelay } from '../../../worker/test/tcp_relay.ts'
import { createDbUnderTest, dialectUp } from './db_fixture.ts'

const HANG = { timeout: 60_000 }

/**
 * The worker's process: a worker half through the relay that opens (and, in `held` mode, takes
 * the task and waits for the word that the relay stopped answering), then closes, prints what
 * onError got, and must then exit on its own — nothing left open.
 */
const WORKER = closingWorkerScript(`
const [dialect, url, place] = process.argv.slice(1)
const { postgresTransport, mysqlTransport } = await import('@cairn/sql/transport')
const errors = []
const onError = (error) => errors.push(\`\${error.code ?? ''} \${error.message}\`)
const worker = (dialect === 'postgres'
  ? postgresTransport({ connectionString: url, schema: place, onError })
  : mysqlTransport({ uri: url, database: place, onError })
).worker()
`)

function task(step: string): TaskMessage {
  const runId = `close-${process.pid}-${Date.now()}`
  return firstAttemptTask({ runId, step, heartbeatIntervalMs: 1_000 })
}

for (const dialect of ['postgres', 'mysql'] as const) {
  const skip = !(await dialectUp(dialect)) && `${dialect} is down`
  const serverUrl = dialect === 'postgres' ? PG_URL : MYSQL_URL

  /** The worker's arguments: its dialect, the relayed URL, the fixture's schema or database. */
  async function through(
    t: { after(fn: () => unknown): void },
    under: ReturnType<typeof createDbUnderTest>,
  ): Promise<{ relay: TcpRelay; args: (mode: string) => string[] }> {
    const relay = await TcpRelay.start(serverUrl, dialect === 'postgres' ? 5432 : 3306)
    t.after(() => relay.close())
    const place = (under.where.schema ?? under.where.database) as string
    return { relay, args: (mode) => [dialect, relay.urlFor(serverUrl), place, mode] }
  }

  void test(
    `db (${dialect}): close gives up its hand-back and cuts its connections when the database stops answering; the process exits`,
    { ...HANG, skip },
    async (t) => {
      const under = createDbUnderTest(dialect)
      t.after(() => under.cleanup())
      const engine = under.engine()
      await engine.open()
      t.after(() => engine.close())
      await engine.publish([{ message: task('close-test'), delayMs: 0 }])
      const { relay, args } = await through(t, under)
      const worker = startScript(t, WORKER, args('held'))
      await worker.printed(/^held 1$/m)
      relay.blackhole()
      worker.tell()
      const { code, output } = await worker.exited
      assert.equal(code, 0, output)
      assert.match(
        output,
        /closed .*E_STORE_FAILURE db transport: handing back 1 task\(s\) did not finish/,
      )
    },
  )

  void test(
    `db (${dialect}): close during an open the database never answers returns; the process exits`,
    { ...HANG, skip },
    async (t) => {
      const under = createDbUnderTest(dialect)
      t.after(() => under.cleanup())
      const { relay, args } = await through(t, under)
      relay.blackhole()
      const { code, output } = await startScript(t, WORKER, args('open')).exited
      assert.equal(code, 0, output)
      assert.match(output, /^open failed$/m)
      assert.match(output, /^closed /m)
    },
  )
}
