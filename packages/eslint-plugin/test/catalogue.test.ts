/**
 * What no-nondeterminism reports in a workflow body, however the source reaches the API
 * (globals, `globalThis`, optional chaining, computed members, aliased imports), and what it
 * deliberately leaves alone (docs/lint.md). Without type information: scope analysis alone
 * tells a global `Date` from a shadowed one.
 */
import { inBody, rule, untypedTester } from './rule_tester.ts'

const clock = (api: string) => ({ messageId: 'clock', data: { api } })
const random = (api: string) => ({ messageId: 'random', data: { api } })
const timer = (api: string) => ({ messageId: 'timer', data: { api } })
const io = (api: string) => ({ messageId: 'io', data: { api } })
const env = { messageId: 'env', data: { api: 'process.env' } }

untypedTester().run('no-nondeterminism: the catalogue', rule, {
  valid: [
    // A fixed date, parsing and arithmetic do not read the clock.
    inBody(
      'const at = new Date(0); new Date(input.at); Date.UTC(2024, 0, 1); Date.parse("2024-01-01")',
    ),
    // The replay-safe equivalents.
    inBody('const now = ctx.now(); await ctx.sleep("1s")'),
    inBody('const id = await ctx.sideEffect(() => crypto.randomUUID())'),
    // Shadowed globals are the file's own values.
    inBody('const Date = { now: () => 0 }; Date.now(); new Date()'),
    inBody('const Math = { random: () => 4 }; Math.random()'),
    `class Date { static now() { return 0 } }\n${inBody('Date.now()')}`,
    `import { now as Date } from './clock.ts'\n${inBody('Date()')}`,
    "engine.register('order', 1, async (ctx, crypto) => crypto.randomUUID())",
    "engine.register('order', 1, async (ctx, { process }) => process.env.KEY)",
    // A member only known at run time is not followed.
    inBody('const name = "random"; Math[name]()'),
    // Deterministic APIs of the same objects and modules.
    inBody('crypto.createHash("sha256"); Math.floor(1.5); performance.mark("x")'),
    `import { createHash } from 'node:crypto'\n${inBody('createHash("sha256")')}`,
    `import { join } from 'node:path'\n${inBody('join("a", "b")')}`,
    `import fs from 'node:fs'\n${inBody('const mode = fs.constants.R_OK')}`,
    // A microtask runs before the body's next outcome is delivered, the same way on every replay.
    inBody('queueMicrotask(() => {}); process.nextTick(() => {})'),
    // Iteration order is fixed by the language (insertion order) for the same data.
    inBody(
      'for (const key in input) {} ; Object.keys(input).map((k) => k); for (const [k] of new Map()) {}',
    ),
    // Outside a workflow body, anything goes.
    'const startedAt = Date.now(); const key = process.env.KEY; setTimeout(() => {}, 10)',
    'function roll() { return Math.random() }',
    // A type-only import has no value to call.
    `import type { Stats } from 'node:fs'\n${inBody('const stats: Stats | null = null')}`,
  ],
  invalid: [
    { code: inBody('Date.now()'), errors: [clock('Date.now()')] },
    { code: inBody('new Date()'), errors: [clock('new Date()')] },
    { code: inBody('const today = Date()'), errors: [clock('Date()')] },
    { code: inBody('Date.now?.()'), errors: [clock('Date.now()')] },
    { code: inBody('globalThis.Date.now()'), errors: [clock('Date.now()')] },
    { code: inBody('performance.now()'), errors: [clock('performance.now()')] },
    {
      code: inBody('process.hrtime(); process.hrtime.bigint(); process.uptime()'),
      errors: [
        clock('process.hrtime()'),
        clock('process.hrtime.bigint()'),
        clock('process.uptime()'),
      ],
    },
    { code: inBody('Temporal.Now.instant()'), errors: [clock('Temporal.Now.instant()')] },
    {
      code: `import { performance as perf } from 'node:perf_hooks'\n${inBody('perf.now()')}`,
      errors: [clock('performance.now()')],
    },

    { code: inBody('Math.random()'), errors: [random('Math.random()')] },
    { code: inBody("Math['random']()"), errors: [random('Math.random()')] },
    { code: inBody('Math[`random`]()'), errors: [random('Math.random()')] },
    { code: inBody('crypto.randomUUID()'), errors: [random('crypto.randomUUID()')] },
    { code: inBody('globalThis.crypto?.randomUUID()'), errors: [random('crypto.randomUUID()')] },
    { code: inBody('crypto!.randomUUID()'), errors: [random('crypto.randomUUID()')] },
    {
      code: inBody('crypto.getRandomValues(new Uint8Array(8))'),
      errors: [random('crypto.getRandomValues()')],
    },
    {
      code: `import { randomUUID as id } from 'node:crypto'\n${inBody('const orderId = id()')}`,
      errors: [random('crypto.randomUUID()')],
    },
    {
      code: `import { randomBytes } from 'crypto'\n${inBody('randomBytes(16)')}`,
      errors: [random('crypto.randomBytes()')],
    },
    {
      code: `import * as nodeCrypto from 'node:crypto'\n${inBody('nodeCrypto.randomInt(10)')}`,
      errors: [random('crypto.randomInt()')],
    },
    {
      code: `import { webcrypto } from 'node:crypto'\n${inBody('webcrypto.getRandomValues(new Uint8Array(4))')}`,
      errors: [random('crypto.getRandomValues()')],
    },

    { code: inBody('setTimeout(() => {}, 10)'), errors: [timer('setTimeout()')] },
    {
      code: inBody('setInterval(() => {}, 10); setImmediate(() => {})'),
      errors: [timer('setInterval()'), timer('setImmediate()')],
    },
    {
      code: `import { setTimeout as sleep } from 'node:timers/promises'\n${inBody('await sleep(1000)')}`,
      errors: [timer('setTimeout()')],
    },
    {
      code: inBody('await new Promise((resolve) => setTimeout(resolve, 10))'),
      errors: [timer('setTimeout()')],
    },

    { code: inBody('const response = await fetch(input.url)'), errors: [io('fetch()')] },
    { code: inBody('new WebSocket(input.url)'), errors: [io('new WebSocket()')] },
    {
      code: `import { readFile } from 'node:fs/promises'\n${inBody('await readFile("order.json")')}`,
      errors: [io("readFile() from 'node:fs/promises'")],
    },
    {
      code: `import fs from 'fs'\n${inBody('fs.readFileSync("order.json")')}`,
      errors: [io("fs.readFileSync() from 'node:fs'")],
    },
    {
      code: `import { execSync as run } from 'node:child_process'\n${inBody('run("ls")')}`,
      errors: [io("run() from 'node:child_process'")],
    },
    {
      code: `import * as http from 'node:http'\n${inBody('http.get(input.url)')}`,
      errors: [io("http.get() from 'node:http'")],
    },
    {
      code: `import os from 'node:os'\n${inBody('const host = os.hostname()')}`,
      errors: [io("os.hostname() from 'node:os'")],
    },
    {
      code: `import pg from 'pg'\nimport { Cursor } from 'pg/cursor'\n${inBody('new pg.Client(); new Cursor()')}`,
      options: [{ ioModules: ['pg'] }],
      errors: [io("new pg.Client() from 'pg'"), io("new Cursor() from 'pg/cursor'")],
    },

    { code: inBody('const key = process.env.API_KEY'), errors: [env] },
    { code: inBody("const key = process.env['API_KEY']"), errors: [env] },
    { code: inBody('const { API_KEY } = process.env'), errors: [env] },
    { code: inBody('globalThis.process.env.API_KEY'), errors: [env] },
    {
      code: `import { env as vars } from 'node:process'\n${inBody('vars.API_KEY; Object.keys(vars)')}`,
      errors: [env, env],
    },
    {
      code: `import proc from 'node:process'\n${inBody('proc.env.API_KEY')}`,
      errors: [env],
    },
  ],
})
