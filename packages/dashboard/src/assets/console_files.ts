/**
 * The console's files, served from an allowlist built once at startup from the console
 * directory's listing: a request names a file by the exact relative path it was listed
 * under, so no request path is ever joined onto a directory. Dotfiles and files of an
 * unknown type are left out.
 */
import { readdirSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

export interface ConsoleFile {
  path: string
  contentType: string
}

/** Relative name (with `/`) → file, for every servable file under `dir` (empty if it is missing). */
export function listConsoleFiles(dir: string): ReadonlyMap<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>()
  for (const path of walk(dir)) {
    const contentType = CONTENT_TYPES[extname(path).toLowerCase()]
    if (contentType !== undefined)
      files.set(relative(dir, path).split(sep).join('/'), { path, contentType })
  }
  return files
}

function walk(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => {
      const path = join(dir, name)
      const stat = statSync(path, { throwIfNoEntry: false })
      if (stat?.isDirectory()) return walk(path)
      return stat?.isFile() ? [path] : []
    })
}
