// Compares a convoduck database with the real-data simulator's truth, conversation by
// conversation: what each should have become (stored exactly, coerced, set aside, deleted) and,
// for those stored, every row of it equal to what the API meant.

import { expect } from 'vitest';
import type { ConversationDetail, ConversationSummary } from '../../src/api/types.js';
import { Database } from '../../src/store/database.js';
import { expectConversationKeys } from './conversation-keys.js';
import type { RealDataTruth, Simulator } from '../../src/simulator/index.js';

export type Outcome = RealDataTruth['expect'];

const ms = (value: unknown): number | null => (value === null || value === undefined ? null : new Date(value as string | Date).getTime());
const json = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.parse(value as string));

function conversationFields(c: ConversationSummary | ConversationDetail): Record<string, unknown> {
  return {
    agent_id: c.agent_id,
    channel: c.channel,
    direction: c.direction,
    session_ref: c.session_ref ?? null,
    page_url: c.page_url ?? null,
    started_at: ms(c.started_at),
    ended_at: ms(c.ended_at),
    duration_sec: c.duration_sec ?? null,
    message_count: c.message_count ?? null,
    outcome: c.outcome ?? null,
    summary: c.summary ?? null,
  };
}

/**
 * Expects every conversation the simulator lists (and every one it deleted) to be in the
 * database as its truth says; returns how many ended in each outcome.
 */
export async function expectStoreMatchesTruth(dbPath: string, sim: Simulator, ids: readonly string[]): Promise<Record<Outcome, number>> {
  const counts: Record<Outcome, number> = { exact: 0, coerced: 0, set_aside: 0, deleted: 0 };
  const db = await Database.open(dbPath, { readOnly: true });
  try {
    const byId = async (sql: string): Promise<Map<string, Record<string, unknown>[]>> => {
      const rows = await db.all(sql);
      const out = new Map<string, Record<string, unknown>[]>();
      for (const r of rows) {
        const id = String(r.id ?? r.conversation_id);
        if (!out.has(id)) out.set(id, []);
        out.get(id)!.push(r);
      }
      return out;
    };
    const conversations = await byId(`SELECT * FROM conversations`);
    const raw = await byId(`SELECT id, detail_state, invalid_reason FROM raw_conversations`);
    const deleted = await byId(`SELECT id, reason FROM deleted_conversations`);
    const turns = await byId(`SELECT * FROM transcript_turns ORDER BY conversation_id, seq`);
    const calls = await byId(`SELECT * FROM tool_calls ORDER BY conversation_id, seq`);
    const visits = await byId(`SELECT * FROM node_visits ORDER BY conversation_id, seq`);

    for (const id of ids) {
      const truth = sim.realData.truth(id);
      counts[truth.expect]++;
      const rows = conversations.get(id) ?? [];
      expect(rows.length, `conversations rows of ${id}`).toBe(1);
      const row = rows[0]!;
      const state = raw.get(id)?.[0];
      const label = `${id} (${truth.expect}: ${[truth.long ? 'long' : '', truth.text ? 'text' : '', ...truth.drift].filter(Boolean).join(', ')})`;
      if (truth.expect === 'deleted') {
        expect(deleted.has(id), `deleted ${label}`).toBe(true);
        expect(row.deleted_at, label).not.toBeNull();
        continue;
      }
      expect(row.deleted_at, label).toBeNull();
      if (truth.expect === 'set_aside') {
        expect(state, label).toMatchObject({ detail_state: 'set_aside' });
        expect(String(state?.invalid_reason ?? ''), label).not.toBe('');
        expect(row.detail_state, label).toBe('set_aside');
        expect(turns.has(id) || calls.has(id) || visits.has(id), label).toBe(false);
        expect(pick(row), label).toEqual(conversationFields(truth.meantSummary!));
        continue;
      }
      const meant = truth.meant!;
      expect(state?.detail_state, label).toBe(truth.expect);
      expect(row.detail_state, label).toBe(truth.expect);
      expect(pick(row), label).toEqual(conversationFields(meant));
      expect(
        (turns.get(id) ?? []).map((t) => ({ spoken_at: ms(t.spoken_at), speaker: t.speaker, text: t.text, node_key: t.node_key })),
        `turns of ${label}`,
      ).toEqual((meant.transcript ?? []).map((t) => ({ spoken_at: ms(t.at), speaker: t.speaker, text: t.text, node_key: t.node_key ?? null })));
      expect(
        (calls.get(id) ?? []).map((t) => ({
          called_at: ms(t.called_at),
          tool_id: t.tool_id,
          slug: t.slug,
          node_key: t.node_key,
          status: t.status,
          input_redacted: json(t.input_redacted),
          output_redacted: json(t.output_redacted),
        })),
        `tool calls of ${label}`,
      ).toEqual(
        (meant.tool_calls ?? []).map((t) => ({
          called_at: ms(t.at),
          tool_id: t.tool_id,
          slug: t.slug,
          node_key: t.node_key ?? null,
          status: t.status,
          input_redacted: t.input_redacted ?? null,
          output_redacted: t.output_redacted ?? null,
        })),
      );
      expect(
        (visits.get(id) ?? []).map((v) => ({ entered_at: ms(v.entered_at), node_key: v.node_key, entry_no: v.entry_no })),
        `node path of ${label}`,
      ).toEqual(
        (meant.node_path ?? []).map((v, i, path) => ({
          entered_at: ms(v.at),
          node_key: v.node_key ?? null,
          // the how-many-th entry into this node (no node counting as one) up to this one
          entry_no: path.slice(0, i + 1).filter((w) => (w.node_key ?? null) === (v.node_key ?? null)).length,
        })),
      );
    }
    const total = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM conversations`);
    expect(total?.n, 'conversations rows in all').toBe(ids.length);
    await expectConversationKeys(db);
  } finally {
    db.close();
  }
  return counts;
}

function pick(row: Record<string, unknown>): Record<string, unknown> {
  return {
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
  };
}
