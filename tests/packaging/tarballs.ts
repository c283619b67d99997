/**
 * Builds the workspace (`npm run build`) and packs each published package with `npm pack`,
 * into a directory outside the repository: what a user downloads from the registry.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mustRun } from './commands.ts'

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export const PUBLISHED = [
  '@cairn/core',
  '@cairn/sql',
  '@cairn/conformance',
  '@cairn/dashboard',
  '@cairn/worker',
  '@cairn/bullmq',
  '@cairn/queue',
  '@cairn/cli',
  '@cairn/eslint-plugin',
  '@cairn/adonis',
] as const

export type PackageName = (typeof PUBLISHED)[number]

export interface Tarball {
  name: PackageName
  /** Absolute path of the .tgz. */
  path: string
  /** Compressed and unpacked sizes, in bytes. */
  size: number
  unpackedSize: number
  /** Every path inside the package (package/ prefix removed). */
  files: string[]
}

interface PackReport {
  name: string
  filename: string
  size: number
  unpackedSize: number
  files: { path: string }[]
}

export async function buildAndPack(destination: string): Promise<Map<PackageName, Tarball>> {
  await mustRun('npm', ['run', 'build'], { cwd: REPO_ROOT })
  await mkdir(destination, { recursive: true })
  const workspaces = PUBLISHED.flatMap((name) => ['--workspace', name])
  const { stdout } = await mustRun(
    'npm',
    ['pack', ...workspaces, '--pack-destination', destination, '--json', '--silent'],
    { cwd: REPO_ROOT },
  )
  const reports = JSON.parse(stdout) as PackReport[]
  const tarballs = new Map<PackageName, Tarball>()
  for (const report of reports) {
    const name = report.name as PackageName
    tarballs.set(name, {
      name,
      path: join(destination, report.filename),
      size: report.size,
      unpackedSize: report.unpackedSize,
      files: report.files.map((file) => file.path),
    })
  }
  return tarballs
}

/** `file:` dependencies on the tarballs, for a user project's package.json. */
export function tarballDependencies(
  tarballs: Map<PackageName, Tarball>,
  names: readonly PackageName[],
): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `file:${tarballs.get(name)?.path}`]))
}
