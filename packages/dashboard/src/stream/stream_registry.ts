/** The live streams of one dashboard, so `dashboard.close()` can end them all. */
export class StreamRegistry {
  private readonly enders = new Set<() => void>()

  add(end: () => void): () => void {
    this.enders.add(end)
    return () => this.enders.delete(end)
  }

  closeAll(): void {
    for (const end of [...this.enders]) end()
    this.enders.clear()
  }

  get size(): number {
    return this.enders.size
  }
}
