// `convoduck forget`: erase conversations on request, by id, by session_ref, or by the caller's
// phone number or e-mail address found in any text stored of them. Every selector is checked and
// every conversation chosen before anything changes; then one transaction erases them (erase.ts)
// and the file is rewritten so that their bytes are gone too (store/rewrite-file.ts). A dry run opens the
// database read-only and only lists what would go.

import { acquireSyncLock } from '../store/sync-lock.js';
import { keyedHash, loadRedactionKey } from '../redact/index.js';
import { InvalidInputError } from '../shared/errors.js';
import { Database } from '../store/database.js';
import { storedSessionRefs } from '../store/redaction-at-rest.js';
import { rewriteDatabaseFile, rewritePending } from '../store/rewrite-file.js';
import { eraseConversations, type Erasure } from './erase.js';
import { canonicalMatch, parseMatch, type MatchTarget } from './match.js';
import { byMatch, bySessionRef, erasedAlready, storedConversations, type ErasureTarget } from './select.js';
import type { ErasureRule } from '../store/erasures.js';

export interface ForgetSelectors {
  ids?: readonly string[];
  sessionRefs?: readonly string[];
  /** phone numbers or e-mail addresses */
  matches?: readonly string[];
}

export interface ForgetOptions extends ForgetSelectors {
  dbPath: string;
  dryRun?: boolean;
  now?: Date;
  /** where CONVODUCK_REDACT_KEY(_FILE) is read from: with a key, the log keeps a keyed hash of each selector */
  env?: NodeJS.ProcessEnv;
  lockTimeoutMs?: number;
}

export interface ForgetResult {
  /** the conversations erased (or, in a dry run, that would be), oldest first */
  erased: (ErasureTarget & { rule: ErasureRule })[];
  /** ids asked for by --id that an earlier erasure already took */
  alreadyErased: string[];
  dryRun: boolean;
  /** whether the file was rewritten (erased rows' bytes gone) */
  rewritten: boolean;
  /** recording files removed with them */
  recordingsDeleted: number;
}

/** Checks the selectors before the database is opened: nothing given, or a --match that is no phone or e-mail, exits 2. */
export function parseSelectors(s: ForgetSelectors): { ids: string[]; sessionRefs: string[]; matches: MatchTarget[] } {
  const ids = [...new Set((s.ids ?? []).map((v) => v.trim()))];
  const sessionRefs = [...new Set((s.sessionRefs ?? []).map((v) => v.trim()))];
  if ([...ids, ...sessionRefs].some((v) => v === '')) throw new InvalidInputError('forget: an empty --id or --session-ref — pass the value to erase');
  const matches = (s.matches ?? []).map(parseMatch);
  if (ids.length + sessionRefs.length + matches.length === 0) {
    throw new InvalidInputError('forget needs a selector — name the conversations to erase with --id, --session-ref or --match (a phone number or e-mail address)');
  }
  return { ids, sessionRefs, matches };
}

export async function forget(options: ForgetOptions): Promise<ForgetResult> {
  const selectors = parseSelectors(options);
  const key = redactionKeyIfSet(options.env ?? process.env);
  const dryRun = options.dryRun ?? false;
  if (dryRun) {
    const picked = await Database.with(options.dbPath, (db) => choose(db, selectors, key), {
      readOnly: true,
      lockTimeoutMs: options.lockTimeoutMs,
    });
    return { ...result(picked), dryRun, rewritten: false, recordingsDeleted: 0 };
  }
  const lock = acquireSyncLock(options.dbPath);
  try {
    const { picked, pending, recordingsDeleted } = await Database.with(
      options.dbPath,
      async (db) => {
        const chosen = await choose(db, selectors, key);
        const files = await eraseConversations(db, chosen.erasures, options.now ?? new Date());
        return { picked: chosen, pending: await rewritePending(db), recordingsDeleted: files };
      },
      { mustExist: true, lockTimeoutMs: options.lockTimeoutMs },
    );
    if (pending) await rewriteDatabaseFile(options.dbPath);
    return { ...result(picked), dryRun, rewritten: pending, recordingsDeleted };
  } finally {
    lock.release();
  }
}

interface Chosen {
  erasures: Erasure[];
  alreadyErased: string[];
}

function result(chosen: Chosen): Pick<ForgetResult, 'erased' | 'alreadyErased'> {
  const erased = chosen.erasures.map((e) => ({ ...e.target, rule: e.rule }));
  erased.sort((a, b) => (a.startedAt?.getTime() ?? -Infinity) - (b.startedAt?.getTime() ?? -Infinity) || (a.id < b.id ? -1 : 1));
  return { erased, alreadyErased: chosen.alreadyErased };
}

/** The conversations the selectors pick, each under the first rule that picked it; an unknown --id refuses all. */
async function choose(db: Database, s: ReturnType<typeof parseSelectors>, key: Buffer | null): Promise<Chosen> {
  const stored = new Map((await storedConversations(db, s.ids)).map((t) => [t.id, t]));
  const already = await erasedAlready(db, s.ids);
  const unknown = s.ids.filter((id) => !stored.has(id) && !already.has(id));
  if (unknown.length > 0) {
    const more = unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : '';
    throw new InvalidInputError(`forget: no conversation ${JSON.stringify(unknown[0])}${more} in ${db.path} — check the id (convoduck query "SELECT id FROM conversations"); nothing was erased`);
  }
  const hash = (selector: string) => (key ? keyedHash(selector, key) : null);
  const picks = new Map<string, { rule: ErasureRule; selectorHash: string | null }>();
  const add = (ids: Iterable<string>, rule: ErasureRule, selectorHash: string | null) => {
    for (const id of ids) if (!picks.has(id)) picks.set(id, { rule, selectorHash });
  };
  add(stored.keys(), 'id', null);
  // under redaction at rest a session_ref is stored as its keyed hash: the given value is hashed too
  for (const ref of s.sessionRefs) add(await bySessionRef(db, await storedSessionRefs(db, [ref], key ? { key } : null)), 'session_ref', hash(`session_ref:${ref}`));
  for (const target of s.matches) add(await byMatch(db, target), 'match', hash(canonicalMatch(target)));
  const targets = await storedConversations(db, [...picks.keys()]);
  return {
    erasures: targets.map((target) => ({ target, ...picks.get(target.id)! })),
    alreadyErased: s.ids.filter((id) => already.has(id) && !stored.has(id)),
  };
}

/** The redaction key when one is set (a key set but unusable exits 2); null when none is. */
function redactionKeyIfSet(env: NodeJS.ProcessEnv): Buffer | null {
  if (!env.CONVODUCK_REDACT_KEY && !env.CONVODUCK_REDACT_KEY_FILE) return null;
  return loadRedactionKey(env);
}

/** Of `ids`, those this database holds or erased earlier: where a folder of space files sends each --id. */
export async function idsHeld(dbPath: string, ids: readonly string[], lockTimeoutMs?: number): Promise<string[]> {
  if (ids.length === 0) return [];
  return Database.with(
    dbPath,
    async (db) => {
      const stored = new Set((await storedConversations(db, ids)).map((t) => t.id));
      const already = await erasedAlready(db, ids);
      return ids.filter((id) => stored.has(id) || already.has(id));
    },
    { readOnly: true, lockTimeoutMs },
  );
}
