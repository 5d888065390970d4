// Which spaces are redacted at rest, as rows: a space synced once with `--redact-at-rest` is
// synced with it, and with the same key, ever after (a run without it would store clear text
// beside the redacted; another key would give every caller a second session_ref hash). The
// check runs before a run writes anything, so a refused run leaves the file as it was.

import { atRestKeyCheck, keyedHash } from '../redact/keyed-hash.js';
import type { Redaction } from '../redact/outputs.js';
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

/** What a run with the given setting may do to the space: go on as recorded, turn it on, or first redact clear text stored. */
export type AtRestState = 'as-recorded' | 'turn-on' | 'clear-text';

/**
 * Refuses a run of `space` whose redaction at rest (`redaction`, null: off) does not fit what is
 * recorded: off for a space recorded with it, or another key. With it on for a space not yet
 * recorded: 'clear-text' when the space holds conversations already (src/store/redact-stored.ts
 * cleans them first), else 'turn-on' (the run records it with `recordAtRest`).
 */
export async function checkAtRest(db: Database, space: string, redaction: Redaction | null, dbPath: string): Promise<AtRestState> {
  const recorded = await atRestOf(db, space);
  if (recorded && !redaction) {
    throw new AtRestMismatchError(
      `space ${space} in ${dbPath} is redacted at rest (since ${recorded.since.toISOString()}) and this run is not — sync it with --redact-at-rest (or CONVODUCK_REDACT_AT_REST=1, or redact_at_rest = true in its [[space]]) and the same key`,
    );
  }
  if (recorded && redaction && recorded.keyCheck !== atRestKeyCheck(redaction)) {
    throw new AtRestMismatchError(`space ${space} in ${dbPath} was redacted at rest with another key — ${KEY_HOW}`);
  }
  if (recorded || !redaction) return 'as-recorded';
  const clear = await db.one<{ n: number }>(
    `SELECT ((SELECT count(*) FROM raw_listed_conversations WHERE space = $1)
           + (SELECT count(*) FROM raw_conversations WHERE space = $1)
           + (SELECT count(*) FROM conversations WHERE space = $1))::INTEGER AS n`,
    [space],
  );
  return (clear?.n ?? 0) > 0 ? 'clear-text' : 'turn-on';
}

/** The space holds clear text that was not redacted before the run: it stops before storing anything. */
export function clearTextError(space: string, dbPath: string): AtRestMismatchError {
  return new AtRestMismatchError(`space ${space} in ${dbPath} holds conversations in clear text — run sync --redact-at-rest on its own, which redacts them first`);
}

/** Records that `space` is redacted at rest from this run on (runId null: turned on outside a run, on stored text). */
export async function recordAtRest(db: Database, space: string, since: Date, runId: number | null, redaction: Redaction): Promise<void> {
  await db.run(`INSERT INTO redaction_at_rest VALUES (?, ?::TIMESTAMPTZ, ?, ?) ON CONFLICT DO NOTHING`, [space, since.toISOString(), runId, atRestKeyCheck(redaction)]);
}
