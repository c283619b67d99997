/**
 * Tests against an external service (Postgres, MySQL): probe it once per test file. When it is
 * unreachable the file registers ONE skipped test whose reason names the service and how to
 * start it, instead of 70 failures; with CI=true or CAIRN_REQUIRE_SERVICES=1 that test fails
 * instead, so a CI run cannot pass by skipping. URLs, start commands and probes are the
 * repository's one set (tests/helpers/services.ts).
 */
import { test } from 'node:test'
import {
  probe,
  servicesRequired,
  START_COMMANDS,
  type Service,
} from '../../../../tests/helpers/services.ts'

/** Registers a test; a no-op when the service is unreachable. */
export type Register = (name: string, body: () => Promise<void>) => void

export async function testsNeeding(
  service: Service,
  label: string,
  url: string,
): Promise<Register> {
  const failure = await probe(service)
  if (failure === null) return (name, body) => void test(name, body)
  const message =
    `${label} is not reachable at ${redact(url)} (${failure}); ` +
    `start it with: ${START_COMMANDS[service]}`
  if (servicesRequired()) {
    void test(`${label} is required (CI or CAIRN_REQUIRE_SERVICES=1)`, () => {
      throw new Error(message)
    })
  } else {
    console.warn(`SKIPPING ${label} tests: ${message}`)
    void test(`${label} tests`, { skip: message }, () => {})
  }
  return () => {}
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
