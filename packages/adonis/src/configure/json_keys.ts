/**
 * Adds keys to an object inside a JSON file (package.json, tsconfig.json) without touching
 * anything else: existing keys keep their values, and the file keeps its indentation, key
 * order and (tsconfig) comments. jsonc-parser edits the text instead of re-serialising it.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser'
import { InvalidArgumentError } from '@cairn/core'

/**
 * Adds each entry of `entries` under `objectPath` whose key is absent; creates the object
 * when `createObject` and it is missing (else adds nothing). Returns the keys added; the file
 * is written only when there are some. A file that is not valid JSON is refused, unchanged.
 */
export async function addMissingKeys(
  file: string,
  objectPath: string[],
  entries: Record<string, unknown>,
  options: { createObject: boolean },
): Promise<string[]> {
  const original = await readFile(file, 'utf8')
  const errors: ParseError[] = []
  const document: unknown = parse(original, errors, { allowTrailingComma: true })
  if (errors.length > 0 || !isObject(document)) {
    throw new InvalidArgumentError(`${file} is not a valid JSON object: left unchanged`, {
      details: { file },
    })
  }
  const target = objectPath.reduce<unknown>(
    (node, key) => (isObject(node) ? node[key] : undefined),
    document,
  )
  if (target !== undefined && !isObject(target)) {
    throw new InvalidArgumentError(`${file}: "${objectPath.join('.')}" is not an object`, {
      details: { file, path: objectPath },
    })
  }
  if (target === undefined && !options.createObject) return []
  const existing = target ?? {}
  const missing = Object.keys(entries).filter((key) => !Object.hasOwn(existing, key))
  const formattingOptions = detectFormatting(original)
  let text = original
  for (const key of missing) {
    text = applyEdits(text, modify(text, [...objectPath, key], entries[key], { formattingOptions }))
  }
  if (missing.length > 0) await writeFile(file, text)
  return missing
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The file's own indentation (two spaces when it has none) and line ending. */
function detectFormatting(text: string) {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  '
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  }
}
