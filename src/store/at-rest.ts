// Which spaces are redacted at rest, as rows: a space synced once with `--redact-at-rest` is
// synced with it, and with the same key, ever after (a run without it would store clear text
// beside the redacted; another key would give every caller a second session_ref hash). The
// check runs before a run writes anything, so a refused run leaves the file as it was.

import { atRestKeyCheck, keyedHash, type Redaction } from '../redact/index.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Database } from './database.js';

/** Schema 10: one row per space redacted at rest, from its first such run. */
export const REDACTION_AT_REST_DDL = `CREATE TABLE IF NOT EXISTS redaction_at_rest (
  space VARCHAR PRIMARY KEY,
  since TIMESTAMPTZ NOT NULL,
  run_id INTEGER,
  key_check VARCHAR NOT NULL
);`;

/** A run's redaction at rest does not fit what the database holds of the space: nothing was stored. */
export class AtRestMismatchError extends InvalidInputError {}

const KEY_HOW = 'set CONVODUCK_REDACT_KEY (or CONVODUCK_REDACT_KEY_FILE) to the key it was synced with';

/** The space's redaction at rest as recorded: since when, and the key's check value; null when it is off. */
export async function atRestOf(db: Database, space: string): Promise<{ since: Date; keyCheck: string } | null> {
  const row = await db.one<{ since: Date; key_check: string }>(`SELECT since, key_check FROM redaction_at_rest WHERE space = ?`, [space]);
  return row ? { since: row.since, keyCheck: row.key_check } : null;
}

/**
 * The values a given session_ref is stored as: itself, and in a database with spaces redacted
 * at rest its keyed hash too. Such a database needs the key it was synced with: without it (or
 * with another) the hash cannot be taken, and the erasure would silently miss those spaces.
 */
export async function storedSessionRefs(db: Database, refs: readonly string[], redaction: Redaction | null): Promise<string[]> {
  if (refs.length === 0) return [];
  const spaces = await db.all<{ space: string; key_check: string }>(`SELECT space, key_check FROM redaction_at_rest ORDER BY space`);
  if (spaces.length === 0) return [...refs];
  const names = spaces.map((s) => s.space).join(', ');
  if (!redaction) {
    throw new AtRestMismatchError(`--session-ref: space ${names} is redacted at rest, where session_ref is stored as its keyed hash — ${KEY_HOW}`);
  }
  const other = spaces.find((s) => s.key_check !== atRestKeyCheck(redaction));
  if (other) throw new AtRestMismatchError(`--session-ref: space ${other.space} was redacted at rest with another key — ${KEY_HOW}`);
  return refs.flatMap((ref) => [ref, keyedHash(ref, redaction.key)]);
}

/**
 * Refuses a run of `space` whose redaction at rest (`redaction`, null: off) does not fit what is
 * stored: off for a space recorded with it, another key, or on for a space that holds clear text.
 * Returns whether the run turns it on (the caller records it with `recordAtRest`).
 */
export async function checkAtRest(db: Database, space: string, redaction: Redaction | null, dbPath: string): Promise<boolean> {
  const recorded = await atRestOf(db, space);
  if (recorded && !redaction) {
    throw new AtRestMismatchError(
      `space ${space} in ${dbPath} is redacted at rest (since ${recorded.since.toISOString()}) and this run is not — sync it with --redact-at-rest (or CONVODUCK_REDACT_AT_REST=1, or redact_at_rest = true in its [[space]]) and the same key`,
    );
  }
  if (recorded && redaction && recorded.keyCheck !== atRestKeyCheck(redaction)) {
    throw new AtRestMismatchError(`space ${space} in ${dbPath} was redacted at rest with another key — ${KEY_HOW}`);
  }
  if (recorded || !redaction) return false;
  const clear = await db.one<{ n: number }>(
    `SELECT ((SELECT count(*) FROM raw_listed_conversations WHERE space = $1)
           + (SELECT count(*) FROM raw_conversations WHERE space = $1)
           + (SELECT count(*) FROM conversations WHERE space = $1))::INTEGER AS n`,
    [space],
  );
  if ((clear?.n ?? 0) > 0) {
    throw new AtRestMismatchError(
      `space ${space} in ${dbPath} already holds conversations stored in clear text, which redaction at rest cannot reach — sync the space with --redact-at-rest into a new database file (--db), then delete this one`,
    );
  }
  return true;
}

/** Records that `space` is redacted at rest from this run on. */
export async function recordAtRest(db: Database, space: string, since: Date, runId: number, redaction: Redaction): Promise<void> {
  await db.run(`INSERT INTO redaction_at_rest VALUES (?, ?::TIMESTAMPTZ, ?, ?) ON CONFLICT DO NOTHING`, [space, since.toISOString(), runId, atRestKeyCheck(redaction)]);
}
