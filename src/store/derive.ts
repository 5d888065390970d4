// Derives the public conversation tables from the raw API bodies. The bodies are read by the
// rules of normalise.ts (the same parser that accepted them, so DuckDB never parses a body);
// the rows go to DuckDB through its appender as text and are cast there. The same functions
// serve a batch during `sync` and the whole database during `rebuild`.

import type { Database } from './database.js';
import { idParams, inIds, pages, stage } from './batch-sql.js';
import { detailState, normaliseDetailText, normaliseSummary, setAsideUnstorable, type ConversationFields, type Drift, type NormalisedDetail } from './normalise.js';
import { deriveSpaceConfig } from './space-config.js';
import { conversationFigures, turnFigures, visitEntries } from './figures.js';
import { conversationKeySql } from './conversation-key.js';
import { indexStagedTurns } from './search-index/maintain.js';
import { SEARCH_TABLES } from './search-index/schema.js';

/** One `conversations` row: the API's fields (from the list entry or the detail) and convoduck's. */
export interface ConversationRow {
  id: string;
  space: string;
  fields: ConversationFields;
  listedAt: Date | null;
  /** when the usable detail stored was fetched (null: none) */
  detailFetchedAt: Date | null;
  /** the stored detail's state, set aside included (null: no detail stored) */
  detailState: string | null;
  deletedAt: Date | null;
}

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

/** Inserts `conversations` rows (the caller deleted the old ones). */
export async function insertConversationRows(db: Database, rows: readonly ConversationRow[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = [
    'id', 'space', 'agent_id', 'channel', 'direction', 'session_ref', 'page_url', 'started_at', 'ended_at', 'duration_sec',
    'message_count', 'outcome', 'summary', 'is_final', 'listed_at', 'detail_fetched_at', 'detail_state', 'deleted_at',
  ];
  await stage(
    db,
    '_conversation_rows',
    columns,
    rows.map((r) => {
      const f = r.fields;
      return [
        r.id, r.space, f.agent_id, f.channel, f.direction, f.session_ref, f.page_url, f.started_at, f.ended_at, f.duration_sec,
        f.message_count, f.outcome, f.summary, String(f.is_final), iso(r.listedAt), iso(r.detailFetchedAt), r.detailState, iso(r.deletedAt),
      ];
    }),
  );
  await db.run(`
    INSERT INTO conversations BY NAME
    SELECT id, space, agent_id, channel, direction, session_ref, page_url,
      try_cast(started_at AS TIMESTAMPTZ) AS started_at, try_cast(ended_at AS TIMESTAMPTZ) AS ended_at,
      try_cast(duration_sec AS INTEGER) AS duration_sec, try_cast(message_count AS INTEGER) AS message_count,
      outcome, summary, is_final::BOOLEAN AS is_final, listed_at::TIMESTAMPTZ AS listed_at,
      detail_fetched_at::TIMESTAMPTZ AS detail_fetched_at, detail_state, deleted_at::TIMESTAMPTZ AS deleted_at,
      ${conversationKeySql('id')} AS conversation_key
    FROM _conversation_rows`);
}

/** A detail's derived rows: a normalised body of one conversation. */
export interface DerivedDetail {
  id: string;
  normalised: NormalisedDetail;
}

/**
 * The tables whose rows belong to one conversation each (by conversation_id). The search index's
 * are among them: replacing or rebuilding a conversation's turns replaces its index rows too.
 */
export const CHILD_TABLES = ['transcript_turns', 'tool_calls', 'node_visits', 'detail_drift', 'conversation_figures', ...SEARCH_TABLES] as const;

/** The drift rows of a detail: what it held that the schema did not expect, and why one was set aside. */
function driftOf(n: NormalisedDetail): Drift[] {
  return n.usable ? n.drift : [...n.drift, { path: n.path, kind: 'set_aside', note: n.reason }];
}

/** Inserts the transcript_turns (and their search index), tool_calls, node_visits, conversation_figures and detail_drift rows of the details. */
export async function insertChildRows(db: Database, details: readonly DerivedDetail[]): Promise<void> {
  const usable = details.filter((d) => d.normalised.usable);
  const rows = function* <T>(pick: (n: Extract<NormalisedDetail, { usable: true }>) => readonly T[], row: (id: string, seq: number, item: T) => (string | null)[]) {
    for (const d of usable) {
      const n = d.normalised as Extract<NormalisedDetail, { usable: true }>;
      const items = pick(n);
      for (let i = 0; i < items.length; i++) yield row(d.id, i, items[i]!);
    }
  };
  const figured = usable.map((d) => {
    const n = d.normalised as Extract<NormalisedDetail, { usable: true }>;
    return { id: d.id, n, figures: turnFigures(n.turns) };
  });
  if (usable.some((d) => (d.normalised as { turns: unknown[] }).turns.length > 0)) {
    const turnRows = function* () {
      for (const { id, n, figures } of figured) {
        for (let seq = 0; seq < n.turns.length; seq++) {
          const t = n.turns[seq]!;
          const f = figures[seq]!;
          yield [id, String(seq), t.at, t.speaker, t.text, t.node_key, f.words === null ? null : String(f.words), f.answersCallerAt, f.repeatOfSeq === null ? null : String(f.repeatOfSeq), f.agentRun === null ? null : String(f.agentRun), String(f.turnsAfter)];
        }
      }
    };
    await stage(db, '_turn_rows', ['conversation_id', 'seq', 'spoken_at', 'speaker', 'text', 'node_key', 'words', 'answers_caller_at', 'repeat_of_seq', 'agent_run', 'turns_after'], turnRows());
    await db.run(`INSERT INTO transcript_turns
      SELECT conversation_id, seq::INTEGER, try_cast(spoken_at AS TIMESTAMPTZ), speaker, text, node_key, words::INTEGER,
        (epoch_ms(try_cast(spoken_at AS TIMESTAMPTZ)) - epoch_ms(try_cast(answers_caller_at AS TIMESTAMPTZ))) / 1000.0,
        repeat_of_seq::INTEGER, agent_run::INTEGER, turns_after::INTEGER, ${conversationKeySql('conversation_id')}
      FROM _turn_rows`);
    await indexStagedTurns(db, '_turn_rows');
  }
  if (usable.some((d) => (d.normalised as { toolCalls: unknown[] }).toolCalls.length > 0)) {
    await stage(
      db,
      '_call_rows',
      ['conversation_id', 'seq', 'called_at', 'tool_id', 'slug', 'node_key', 'status', 'input_redacted', 'output_redacted'],
      rows((n) => n.toolCalls, (id, seq, t) => [id, String(seq), t.at, t.tool_id, t.slug, t.node_key, t.status, t.input, t.output]),
    );
    await db.run(
      `INSERT INTO tool_calls SELECT conversation_id, seq::INTEGER, try_cast(called_at AS TIMESTAMPTZ), tool_id, slug, node_key, status,
         input_redacted::JSON, output_redacted::JSON, ${conversationKeySql('conversation_id')} FROM _call_rows`,
    );
  }
  if (usable.some((d) => (d.normalised as { visits: unknown[] }).visits.length > 0)) {
    const visitRows = function* () {
      for (const { id, n } of figured) {
        const entries = visitEntries(n.visits);
        for (let seq = 0; seq < n.visits.length; seq++) {
          const v = n.visits[seq]!;
          yield [id, String(seq), v.at, v.node_key, String(entries[seq])];
        }
      }
    };
    await stage(db, '_visit_rows', ['conversation_id', 'seq', 'entered_at', 'node_key', 'entry_no'], visitRows());
    await db.run(`INSERT INTO node_visits SELECT conversation_id, seq::INTEGER, try_cast(entered_at AS TIMESTAMPTZ), node_key, entry_no::INTEGER,
      ${conversationKeySql('conversation_id')} FROM _visit_rows`);
  }
  const perConversation = figured.flatMap(({ id, n, figures }) => {
    const c = conversationFigures(n.turns, figures, n.visits, n.toolCalls);
    if (c === null) return [];
    const row = [c.turns, c.agent_turns, c.caller_turns, c.agent_words, c.caller_words, c.longest_agent_run, c.node_visits];
    return [[id, ...row.map(String), c.last_node, c.last_node_at, String(c.tool_calls), String(c.failed_tool_calls)]];
  });
  if (perConversation.length > 0) {
    const columns = ['conversation_id', 'turns', 'agent_turns', 'caller_turns', 'agent_words', 'caller_words', 'longest_agent_run', 'node_visits', 'last_node', 'last_node_at', 'tool_calls', 'failed_tool_calls'];
    await stage(db, '_figure_rows', columns, perConversation);
    await db.run(`INSERT INTO conversation_figures
      SELECT conversation_id, turns::INTEGER, agent_turns::INTEGER, caller_turns::INTEGER, agent_words::BIGINT, caller_words::BIGINT,
        longest_agent_run::INTEGER, node_visits::INTEGER, last_node, try_cast(last_node_at AS TIMESTAMPTZ), tool_calls::INTEGER, failed_tool_calls::INTEGER,
        ${conversationKeySql('conversation_id')}
      FROM _figure_rows`);
  }
  const drift = details.flatMap((d) => driftOf(d.normalised).map((x) => [d.id, x.path, x.kind, x.note]));
  if (drift.length > 0) {
    await stage(db, '_drift_rows', ['conversation_id', 'path', 'kind', 'note'], drift);
    await db.run(`INSERT INTO detail_drift SELECT conversation_id, path, kind, note FROM _drift_rows`);
  }
}

/** Deletes the rows of the child tables that belong to these conversations. */
export async function deleteChildRows(db: Database, ids: readonly string[]): Promise<void> {
  for (const table of CHILD_TABLES) await db.run(`DELETE FROM ${table} WHERE ${inIds(ids, 'conversation_id')}`, idParams(ids));
}

/**
 * Re-derives everything derived from the raw bodies, in one transaction: each stored detail is
 * read again by today's rules (a detail set aside by older ones may now be stored, and the other
 * way round), then the conversations, their child rows and the agents' history.
 */
export async function rebuild(db: Database): Promise<void> {
  await db.transaction(() => rederive(db));
}

/** What `rebuild` does, inside the caller's transaction. */
export async function rederive(db: Database): Promise<void> {
  await db.run('DELETE FROM conversations');
  for (const table of CHILD_TABLES) await db.run(`DELETE FROM ${table}`);
  await db.run(`CREATE OR REPLACE TEMP TABLE _detail_states (id VARCHAR, invalid_reason VARCHAR, detail_state VARCHAR, is_final BOOLEAN, has_recording_link BOOLEAN)`);
  // Details first: each one's state is what decides whether its list entry wins.
  await pages<{
    id: string; space: string; fetched_at: Date; body: string | null; invalid_reason: string | null; has_recording_link: boolean | null;
    listed_at: Date | null; deleted_at: Date | null;
  }>(
    db,
    'raw_conversations',
    (range) => `SELECT d.id, d.space, d.fetched_at, d.body, d.invalid_reason, d.has_recording_link, l.listed_at, x.seen_deleted_at AS deleted_at
      FROM (SELECT rowid, * FROM raw_conversations WHERE ${range}) d
      LEFT JOIN (SELECT id, listed_at FROM raw_listed_conversations) l USING (id)
      LEFT JOIN deleted_conversations x USING (id)`,
    async (rows) => {
      const parted = rows.filter((r) => r.body === null).map((r) => r.id);
      const bodies = await bodiesInParts(db, parted);
      // an empty body is one not kept (over the size limit): its reason and load facts stay those it was written with
      const derived = rows.map((r) => ({
        id: r.id,
        normalised:
          r.body === ''
            ? setAsideUnstorable(r.invalid_reason ?? 'body is empty', r.has_recording_link ?? false)
            : normaliseDetailText(r.body ?? bodies.get(r.id) ?? '', r.id),
      }));
      await stage(db, '_detail_state_rows', ['id', 'invalid_reason', 'detail_state', 'is_final', 'has_recording_link'], derived.map((d) => {
        const n = d.normalised;
        return [d.id, n.usable ? null : n.reason, detailState(n), String(n.usable && n.fields.is_final), String(n.recordingLink)];
      }));
      await db.run(`INSERT INTO _detail_states SELECT id, invalid_reason, detail_state, is_final::BOOLEAN, has_recording_link::BOOLEAN FROM _detail_state_rows`);
      // a usable detail fetched at or after its listing is the conversation's row
      const winners = rows.flatMap((r, i) => {
        const n = derived[i]!.normalised;
        if (!n.usable || (r.listed_at !== null && r.fetched_at < r.listed_at)) return [];
        return [{ id: r.id, space: r.space, fields: n.fields, listedAt: r.listed_at, detailFetchedAt: r.fetched_at, detailState: detailState(n), deletedAt: r.deleted_at }];
      });
      await insertConversationRows(db, winners);
      await insertChildRows(db, derived);
    },
  );
  await db.run(
    `UPDATE raw_conversations r SET invalid_reason = s.invalid_reason, detail_state = s.detail_state, is_final = s.is_final,
       has_recording_link = s.has_recording_link
     FROM _detail_states s WHERE r.id = s.id`,
  );
  // Then every listed conversation whose row no usable detail gave.
  await pages<{ id: string; space: string; listed_at: Date; body: string; fetched_at: Date | null; detail_state: string | null; deleted_at: Date | null }>(
    db,
    'raw_listed_conversations',
    (range) => `SELECT l.id, l.space, l.listed_at, l.body, d.fetched_at, s.detail_state, x.seen_deleted_at AS deleted_at
      FROM (SELECT rowid, * FROM raw_listed_conversations WHERE ${range}) l
      LEFT JOIN _detail_states s USING (id)
      LEFT JOIN (SELECT id, fetched_at FROM raw_conversations WHERE invalid_reason IS NULL) d USING (id)
      LEFT JOIN deleted_conversations x USING (id)
      WHERE d.id IS NULL OR d.fetched_at < l.listed_at`,
    (rows) =>
      insertConversationRows(
        db,
        rows.map((r) => ({
          id: r.id,
          space: r.space,
          fields: normaliseSummary(parseOrNull(r.body)),
          listedAt: r.listed_at,
          detailFetchedAt: r.fetched_at,
          detailState: r.detail_state,
          deletedAt: r.deleted_at,
        })),
      ),
  );
  await db.run('DROP TABLE _detail_states');
  await deriveSpaceConfig(db);
}

/** The bodies kept in parts (raw_conversation_parts), whole again, by id. */
export async function bodiesInParts(db: Database, ids: readonly string[]): Promise<Map<string, string>> {
  const bodies = new Map<string, string[]>();
  if (ids.length === 0) return new Map();
  const rows = await db.all<{ id: string; text: string }>(`SELECT id, text FROM raw_conversation_parts WHERE ${inIds(ids, 'id')} ORDER BY id, part`, idParams(ids));
  for (const r of rows) {
    if (!bodies.has(r.id)) bodies.set(r.id, []);
    bodies.get(r.id)!.push(r.text);
  }
  return new Map([...bodies].map(([id, parts]) => [id, parts.join('')]));
}

/** A stored body parsed, or null when it is not JSON (it was stored as received). */
export function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
