/**
 * `GET <base>/` (the console page, which also shows the login form) and
 * `GET <base>/assets/<name>`. Public: a browser must load the login page before it has a
 * session. A name is looked up as the raw request path says it, before any decoding, so
 * `..`, `%2e%2e`, encoded slashes and backslashes match nothing and answer 404.
 */
import type { Hono } from 'hono'
import { notFound } from '../http/http_error.ts'
import { AssetBodies } from './asset_bodies.ts'
import { listConsoleFiles, type ConsoleFile } from './console_files.ts'
import type { AppEnv } from '../http/app_env.ts'

const UNSAFE_NAME = /(^|\/)\.\.?(\/|$)|%|\\|\/\/|^\//

export function mountAssets(app: Hono<AppEnv>, consoleDir: string): void {
  const files = listConsoleFiles(consoleDir)
  const bodies = new AssetBodies()
  app.get('/', (c) => serve(bodies, files.get('index.html'), c.req.raw))
  app.get('/assets/*', (c) => {
    const raw = rawPath(c.req.url)
    const name = raw.slice(raw.indexOf('/assets/') + '/assets/'.length)
    return serve(bodies, UNSAFE_NAME.test(name) ? undefined : files.get(name), c.req.raw)
  })
}

/** The file, or 304 when the browser already holds this version of it (If-None-Match). */
async function serve(
  bodies: AssetBodies,
  file: ConsoleFile | undefined,
  request: Request,
): Promise<Response> {
  if (file === undefined) throw notFound('no such file')
  const { body, etag } = await bodies.get(file.path).catch((error: unknown) => {
    // Listed at startup, deleted since: gone, like a file never listed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('no such file')
    throw error
  })
  const headers = { etag, 'cache-control': 'no-cache' }
  if (holds(request.headers.get('if-none-match'), etag))
    return new Response(null, { status: 304, headers })
  return new Response(body, { headers: { ...headers, 'content-type': file.contentType } })
}

/** Whether an If-None-Match list names `etag` (weak comparison, as RFC 9110 asks for GET). */
function holds(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}

/** The path exactly as requested (URL keeps percent-escapes as sent). */
function rawPath(url: string): string {
  return new URL(url).pathname
}
