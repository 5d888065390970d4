// The list entries a run has stored, by id, as a hash of their body. A window listed again (split
// because it did not add up, or re-listed because a page boundary hid a conversation) serves mostly
// entries the run already stored. Writing those again would delete and re-insert each one's row
// and its conversations row for nothing, so the unchanged ones are skipped.

/** A 53-bit hash of a string (cyrb53): equal bodies hash equal, different ones practically never. */
export function bodyHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

export class ListedBodies {
  private readonly stored = new Map<string, number>();

  /** The entries this run has not stored with this very body. */
  unstored<T extends { id: string; body: string }>(entries: readonly T[]): T[] {
    return entries.filter((e) => this.stored.get(e.id) !== bodyHash(e.body));
  }

  /** Remembers entries as stored (once their write has committed). */
  remember(entries: readonly { id: string; body: string }[]): void {
    for (const e of entries) this.stored.set(e.id, bodyHash(e.body));
  }

  clear(): void {
    this.stored.clear();
  }
}
