/**
 * Tests against an external service (Postgres, MySQL): probe it once per test file. When it is
 * unreachable the file registers ONE skipped test whose reason names the service and how to
 * start it, instead of 70 failures; with CI=true or CAIRN_REQUIRE_SERVICES=1 that test fails
 * instead, so a CI run cannot pass by skipping.
 */
import { test } from 'node:test'

export interface Service {
  /** Shown in the message: `Postgres`. */
  name: string
  /** Where it was looked for (credentials are not printed). */
  url: string
  /** The command that starts it on a development machine. */
  start: string
  /** Resolves when the service answers; rejects otherwise (give it a short timeout). */
  probe(): Promise<void>
}

/** Registers a test; a no-op when the service is unreachable. */
export type Register = (name: string, body: () => Promise<void>) => void

export function servicesRequired(): boolean {
  return process.env.CI === 'true' || process.env.CAIRN_REQUIRE_SERVICES === '1'
}

export async function testsNeeding(service: Service): Promise<Register> {
  const failure = await service.probe().then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  )
  if (failure === null) return (name, body) => void test(name, body)
  const message =
    `${service.name} is not reachable at ${redact(service.url)} (${failure}); ` +
    `start it with: ${service.start}`
  if (servicesRequired()) {
    void test(`${service.name} is required (CI or CAIRN_REQUIRE_SERVICES=1)`, () => {
      throw new Error(message)
    })
  } else {
    console.warn(`SKIPPING ${service.name} tests: ${message}`)
    void test(`${service.name} tests`, { skip: message }, () => {})
  }
  return () => {}
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
