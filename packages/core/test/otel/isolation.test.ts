/**
 * @opentelemetry/api is an optional peer: only src/otel may import it, so an application
 * that never imports @cairn/core/otel loads nothing of it (and needs it not installed).
 */
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'

const SRC = join(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

void test('no core file outside src/otel imports @opentelemetry', () => {
  const offenders = sourceFiles(SRC)
    .filter((path) => !relative(SRC, path).startsWith('otel/'))
    .filter((path) => /from '@opentelemetry\//.test(readFileSync(path, 'utf8')))
    .map((path) => relative(SRC, path))
  assert.ok(sourceFiles(join(SRC, 'otel')).length > 0, 'src/otel exists')
  assert.deepEqual(offenders, [])
})
