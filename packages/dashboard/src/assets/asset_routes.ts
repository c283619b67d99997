/**
 * `GET <base>/` (the console page, which also shows the login form) and
 * `GET <base>/assets/<name>`. Public: a browser must load the login page before it has a
 * session. A name is looked up as the raw request path says it, before any decoding, so
 * `..`, `%2e%2e`, encoded slashes and backslashes match nothing and answer 404.
 */
import { readFile } from 'node:fs/promises'
import type { Hono } from 'hono'
import { notFound } from '../http/http_error.ts'
import { listConsoleFiles, type ConsoleFile } from './console_files.ts'
import type { AppEnv } from '../http/app_env.ts'

const UNSAFE_NAME = /(^|\/)\.\.?(\/|$)|%|\\|\/\/|^\//

export function mountAssets(app: Hono<AppEnv>, consoleDir: string): void {
  const files = listConsoleFiles(consoleDir)
  app.get('/', () => serve(files.get('index.html')))
  app.get('/assets/*', (c) => {
    const raw = rawPath(c.req.url)
    const name = raw.slice(raw.indexOf('/assets/') + '/assets/'.length)
    return serve(UNSAFE_NAME.test(name) ? undefined : files.get(name))
  })
}

async function serve(file: ConsoleFile | undefined): Promise<Response> {
  if (file === undefined) throw notFound('no such file')
  const body = await readFile(file.path)
  return new Response(body, {
    headers: { 'content-type': file.contentType, 'cache-control': 'no-cache' },
  })
}

/** The path exactly as requested (URL keeps percent-escapes as sent). */
function rawPath(url: string): string {
  return new URL(url).pathname
}
