/**
 * Console file bodies, read once and kept with a strong ETag until the file changes on disk.
 * A stat per request (far cheaper than a read) notices an edited console without a restart;
 * browsers revalidate (`cache-control: no-cache`) and get 304 for the files they hold, so a
 * reload of the console's modules moves headers, not bodies.
 */
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'

export interface AssetBody {
  body: Uint8Array<ArrayBuffer>
  /** Strong validator: a digest of the body, quoted as the header wants it. */
  etag: string
}

interface Cached extends AssetBody {
  /** Size and modification time of the file the body was read from. */
  version: string
}

export class AssetBodies {
  readonly #cache = new Map<string, Cached>()

  async get(path: string): Promise<AssetBody> {
    const version = await versionOf(path)
    const cached = this.#cache.get(path)
    if (cached?.version === version) return cached
    const body = await readFile(path)
    // Stat again after the read: a file rewritten meanwhile is cached under the later version
    // only if the read saw it whole; otherwise the next request reads it again.
    const fresh: Cached = { body, etag: etagOf(body), version: await versionOf(path) }
    if (fresh.version === version) this.#cache.set(path, fresh)
    return fresh
  }
}

async function versionOf(path: string): Promise<string> {
  const info = await stat(path)
  return `${info.size}:${info.mtimeMs}`
}

function etagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}
