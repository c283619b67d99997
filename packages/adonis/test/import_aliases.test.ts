/**
 * The import aliases configure adds to an app's package.json and tsconfig.json: only what is
 * missing, in the file's own formatting, comments kept; a broken file is refused unchanged.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { addImportAliases } from '../src/configure/import_aliases.ts'
import { tempDir } from './helpers.ts'

async function appWith(t: Parameters<typeof tempDir>[0], files: Record<string, string>) {
  const root = await tempDir(t)
  for (const [file, contents] of Object.entries(files)) await writeFile(join(root, file), contents)
  return root
}

void test('adds the missing aliases to package.json imports in its own indentation, keeping the others', async (t) => {
  const packageJson = [
    '{',
    '    "name": "app",',
    '    "imports": {',
    '        "#workflows/*": "./src/workflows/*.js",',
    '        "#start/*": "./start/*.js"',
    '    },',
    '    "type": "module"',
    '}',
    '',
  ].join('\n')
  const root = await appWith(t, { 'package.json': packageJson })

  assert.deepEqual(await addImportAliases(root), ['package.json: #steps/*'])
  const written = await readFile(join(root, 'package.json'), 'utf8')
  assert.equal(
    written,
    packageJson.replace(
      '"#start/*": "./start/*.js"\n',
      '"#start/*": "./start/*.js",\n        "#steps/*": "./app/steps/*.js"\n',
    ),
  )

  assert.deepEqual(await addImportAliases(root), [])
  assert.equal(await readFile(join(root, 'package.json'), 'utf8'), written)
})

void test('creates package.json imports when the app has none', async (t) => {
  const root = await appWith(t, { 'package.json': '{ "name": "app" }\n' })
  await addImportAliases(root)
  const { imports } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    imports: unknown
  }
  assert.deepEqual(imports, {
    '#workflows/*': './app/workflows/*.js',
    '#steps/*': './app/steps/*.js',
  })
})

void test('adds tsconfig paths (to the sources) only when the app maps paths, keeping comments', async (t) => {
  const tsconfig = [
    '{',
    '  // the app maps its own aliases',
    '  "compilerOptions": {',
    '    "paths": { "#app/*": ["./app/*.ts"] }',
    '  }',
    '}',
    '',
  ].join('\n')
  const root = await appWith(t, { 'package.json': '{}\n', 'tsconfig.json': tsconfig })
  const added = await addImportAliases(root)
  assert.ok(added.includes('tsconfig.json: #workflows/*'), added.join(', '))
  const written = await readFile(join(root, 'tsconfig.json'), 'utf8')
  assert.match(written, /\/\/ the app maps its own aliases/)
  assert.match(written, /"#app\/\*": \[\s*"\.\/app\/\*\.ts"\s*\]/)
  assert.match(written, /"#workflows\/\*": \[\s*"\.\/app\/workflows\/\*\.ts"\s*\]/)
  assert.match(written, /"#steps\/\*": \[\s*"\.\/app\/steps\/\*\.ts"\s*\]/)

  const withoutPaths = '{\n  "compilerOptions": { "strict": true }\n}\n'
  const other = await appWith(t, { 'package.json': '{}\n', 'tsconfig.json': withoutPaths })
  assert.deepEqual(
    (await addImportAliases(other)).filter((a) => a.startsWith('tsconfig')),
    [],
  )
  assert.equal(await readFile(join(other, 'tsconfig.json'), 'utf8'), withoutPaths)
})

void test('a package.json that is not valid JSON, or whose imports is not an object, is refused unchanged', async (t) => {
  for (const broken of ['{ "name": "app", \n', '{ "imports": ["#x"] }\n']) {
    const root = await appWith(t, { 'package.json': broken })
    await assert.rejects(addImportAliases(root), { code: 'E_INVALID_ARGUMENT' })
    assert.equal(await readFile(join(root, 'package.json'), 'utf8'), broken)
  }
})
