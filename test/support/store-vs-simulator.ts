// Compares every public table of a convoduck database with the simulator's own data,
// row by row, including the order of turns, tool calls and node visits.

import { expect } from 'vitest';
import type { ConversationDetail } from '../../src/api/types.js';
import { Database } from '../../src/store/database.js';
import { expectConversationKeys } from './conversation-keys.js';

export interface SimulatorData {
  conversations: { id: string }[];
  detail(id: string): ConversationDetail | undefined;
}

const ms = (value: unknown): number | null =>
  value === null || value === undefined ? null : new Date(value as string | Date).getTime();

const json = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.parse(value as string));

/**
 * Expects the database to hold exactly the simulator's conversations (all details fetched); with
 * `space`, the rows of that space are compared (a database holding several spaces).
 */
export async function expectStoreMatches(
  dbPath: string,
  data: SimulatorData,
  options: { confidential?: boolean; space?: string } = {},
): Promise<void> {
  const db = await Database.open(dbPath, { readOnly: true });
  const ofSpace = options.space === undefined ? 'true' : 'space = $space';
  const ofSpaceChild = options.space === undefined ? 'true' : 'conversation_id IN (SELECT id FROM conversations WHERE space = $space)';
  const params = options.space === undefined ? undefined : { space: options.space };
  try {
    const expected = new Map<string, ConversationDetail>();
    for (const { id } of data.conversations) expected.set(id, data.detail(id)!);

    const conversations = await db.all(`SELECT * FROM conversations WHERE ${ofSpace} ORDER BY id`, params);
    expect(conversations.length).toBe(expected.size);
    for (const row of conversations) {
      const c = expected.get(row.id as string);
      expect(c, `unexpected conversation ${String(row.id)}`).toBeDefined();
      if (!c) continue;
      expect({
        agent_id: row.agent_id,
        channel: row.channel,
        direction: row.direction,
        session_ref: row.session_ref,
        page_url: row.page_url,
        started_at: ms(row.started_at),
        ended_at: ms(row.ended_at),
        duration_sec: row.duration_sec,
        message_count: row.message_count,
        outcome: row.outcome,
        summary: row.summary,
        detail_fetched: row.detail_fetched_at !== null,
      }).toEqual({
        agent_id: c.agent_id,
        channel: c.channel,
        direction: c.direction,
        session_ref: c.session_ref,
        page_url: c.page_url,
        started_at: ms(c.started_at),
        ended_at: ms(c.ended_at),
        duration_sec: c.duration_sec,
        message_count: c.message_count,
        outcome: c.outcome,
        summary: options.confidential ? null : (c.summary ?? null),
        detail_fetched: true,
      });
    }

    // the API's fields of each turn (its figures are held to their own recomputation in quality-reports and schema-12)
    const turns = await db.all(`SELECT conversation_id, seq, spoken_at, speaker, text, node_key FROM transcript_turns WHERE ${ofSpaceChild} ORDER BY conversation_id, seq`, params);
    const expectedTurns = [...expected.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .flatMap((c) =>
        (c.transcript ?? []).map((t, seq) => ({
          conversation_id: c.id,
          seq,
          spoken_at: ms(t.at),
          speaker: t.speaker,
          text: t.text,
          node_key: t.node_key,
        })),
      );
    if (options.confidential) expect(expectedTurns).toEqual([]);
    expect(turns.map((t) => ({ ...t, spoken_at: ms(t.spoken_at) }))).toEqual(expectedTurns);

    const calls = await db.all(`SELECT conversation_id, seq, called_at, tool_id, slug, node_key, status, input_redacted, output_redacted FROM tool_calls WHERE ${ofSpaceChild} ORDER BY conversation_id, seq`, params);
    const expectedCalls = [...expected.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .flatMap((c) =>
        c.tool_calls.map((t, seq) => ({
          conversation_id: c.id,
          seq,
          called_at: ms(t.at),
          tool_id: t.tool_id,
          slug: t.slug,
          node_key: t.node_key,
          status: t.status,
          input_redacted: t.input_redacted ?? null,
          output_redacted: t.output_redacted ?? null,
        })),
      );
    expect(
      calls.map((t) => ({
        ...t,
        called_at: ms(t.called_at),
        input_redacted: json(t.input_redacted),
        output_redacted: json(t.output_redacted),
      })),
    ).toEqual(expectedCalls);

    const visits = await db.all(`SELECT conversation_id, seq, entered_at, node_key, entry_no FROM node_visits WHERE ${ofSpaceChild} ORDER BY conversation_id, seq`, params);
    const expectedVisits = [...expected.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .flatMap((c) =>
        c.node_path.map((v, seq) => ({
          conversation_id: c.id,
          seq,
          entered_at: ms(v.at),
          node_key: v.node_key,
          entry_no: c.node_path.slice(0, seq + 1).filter((w) => w.node_key === v.node_key).length,
        })),
      );
    expect(visits.map((v) => ({ ...v, entered_at: ms(v.entered_at) }))).toEqual(expectedVisits);

    await expectNoDuplicateKeys(db);
    await expectConversationKeys(db);
  } finally {
    db.close();
  }
}

export async function expectNoDuplicateKeys(db: Database): Promise<void> {
  const dupes = await db.all(`
    SELECT 'conversations' AS t, count(*) - count(DISTINCT id) AS d FROM conversations
    UNION ALL SELECT 'transcript_turns', count(*) - count(DISTINCT (conversation_id, seq)) FROM transcript_turns
    UNION ALL SELECT 'tool_calls', count(*) - count(DISTINCT (conversation_id, seq)) FROM tool_calls
    UNION ALL SELECT 'node_visits', count(*) - count(DISTINCT (conversation_id, seq)) FROM node_visits
    UNION ALL SELECT 'raw_conversations', count(*) - count(DISTINCT id) FROM raw_conversations
    UNION ALL SELECT 'raw_listed_conversations', count(*) - count(DISTINCT id) FROM raw_listed_conversations`);
  for (const row of dupes) expect(Number(row.d), `duplicates in ${String(row.t)}`).toBe(0);
}
