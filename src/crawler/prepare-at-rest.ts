// Before a space's first run with redaction at rest: when the file already holds the space's
// conversations in clear text, they are redacted and the file rewritten (src/store/redact-stored.ts)
// before anything is fetched, so the space never holds clear and redacted text side by side.

import { existsSync } from 'node:fs';
import type { Redaction } from '../redact/index.js';
import { checkAtRest } from '../store/redaction-at-rest.js';
import { redactStoredSpace } from '../store/redact-stored.js';
import { rewriteDatabaseFile, rewritePending } from '../store/rewrite-file.js';
import type { BatchWriter } from './writer.js';

/**
 * Checks each space's redaction at rest against the file (a mismatch throws before anything is
 * stored) and redacts the clear text of the spaces turning it on. The caller holds the sync
 * lock; `writer` has nothing else queued. Returns the bodies redacted per space.
 */
export async function prepareAtRest(
  dbPath: string,
  writer: BatchWriter,
  spaces: readonly { space: string; redaction: Redaction | null }[],
  now: () => Date,
): Promise<Map<string, number>> {
  const redacted = new Map<string, number>();
  if (!existsSync(dbPath)) return redacted;
  const { clear, pending } = await writer.write(async (db) => {
    const out: { space: string; redaction: Redaction }[] = [];
    for (const s of spaces) if ((await checkAtRest(db, s.space, s.redaction, dbPath)) === 'clear-text' && s.redaction) out.push({ space: s.space, redaction: s.redaction });
    return { clear: out, pending: await rewritePending(db) };
  });
  // the rewrite needs the file to itself: the writer's last opening must be closed
  await writer.idle();
  for (const c of clear) redacted.set(c.space, await redactStoredSpace(dbPath, c.space, c.redaction, now()));
  // a rewrite that did not finish (a crash after the redaction or an erasure committed) is done here
  if (clear.length === 0 && pending && spaces.some((s) => s.redaction)) await rewriteDatabaseFile(dbPath);
  return redacted;
}
