/**
 * A user's project outside the repository: a package.json naming the tarballs and registry
 * packages, installed with `npm install` (no workspace links). Registry packages are pinned
 * to the versions this repository is tested with (read from its node_modules), so the
 * packaging test checks our tarballs, not a new release of a dependency.
 */
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { mustRun } from './commands.ts'
import { REPO_ROOT } from './tarballs.ts'

export interface ProjectManifest {
  dependencies: Record<string, string>
  devDependencies?: Record<string, string>
  imports?: Record<string, string>
  scripts?: Record<string, string>
}

/** The version of `name` in this repository's node_modules. */
export async function testedVersion(name: string): Promise<string> {
  const manifest = join(REPO_ROOT, 'node_modules', name, 'package.json')
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version
}

/** `{ name: version }` for registry packages, each pinned to the version tested here. */
export async function pinned(names: string[]): Promise<Record<string, string>> {
  const entries = await Promise.all(names.map(async (name) => [name, await testedVersion(name)]))
  return Object.fromEntries(entries)
}

/** Writes a project's package.json in `root`, after copying a fixture directory there if given. */
export async function createProject(
  root: string,
  fixture: string | null,
  manifest: ProjectManifest,
): Promise<void> {
  if (fixture === null) await mkdir(root, { recursive: true })
  else await cp(fixture, root, { recursive: true })
  const packageJson = { name: 'cairn-user-project', private: true, type: 'module', ...manifest }
  await writeFile(join(root, 'package.json'), JSON.stringify(packageJson, null, 2) + '\n')
}

export async function npmInstall(root: string): Promise<void> {
  await mustRun('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    timeoutMs: 600_000,
  })
}
