// A dataset small enough to check by hand: 12 conversations of two agents in two weeks, written
// as API bodies through the store's own write path (the one a sync uses after HTTP) into a real
// DuckDB file. test/html-report.test.ts lists the figures each report must give for it.
//
//   week of Mon 2026-11-02 (the period before)        week of Mon 2026-11-09 (the period)
//   p1 Alpha voice  Tue 09:00  50s completed           c1 Alpha voice Mon 09:00   40s completed
//   p2 Alpha voice  Wed 10:00  30s hung_up             c2 Alpha voice Mon 10:00  100s transferred
//   p3 Beta  chat   Thu 11:00 120s completed           c3 Alpha voice Tue 09:30    8s hung_up
//   p4 Beta  chat   Fri 12:00  90s transferred         c4 Alpha voice Wed 14:00   70s completed
//                                                      c5 Beta  chat  Mon 11:00  200s completed
//                                                      c6 Beta  chat  Thu 15:00   20s hung_up
//                                                      c7 Beta  chat  Thu 16:00  650s transferred
//                                                      c8 Beta  chat  Sun 20:00  still running

import type { ConversationDetail, ToolCallEntry } from '../../src/api/types.js';
import { Database } from '../../src/store/database.js';
import { finishRun, startRun, type RunCounters } from '../../src/store/sync-runs.js';
import { fetchedDetail, saveDetails, saveDimensions } from '../../src/store/writes.js';

export const HAND_SPACE = 'hand-space';
export const ALPHA = '00000000-0000-4000-8000-00000000000a';
export const BETA = '00000000-0000-4000-8000-00000000000b';
const FIND = '00000000-0000-4000-8000-0000000000f1';
const LOOKUP = '00000000-0000-4000-8000-0000000000f2';
export const SYNCED_AT = new Date('2026-11-16T06:00:00Z');

interface Spec {
  id: string;
  agent: string;
  start: string;
  seconds: number | null;
  outcome: string | null;
  path: string[];
  /** slug:status, in call order */
  calls?: string[];
}

const SPECS: Spec[] = [
  { id: 'p1', agent: ALPHA, start: '2026-11-03T09:00:00Z', seconds: 50, outcome: 'completed', path: ['greeting', 'faq'], calls: ['find_customer:ok'] },
  { id: 'p2', agent: ALPHA, start: '2026-11-04T10:00:00Z', seconds: 30, outcome: 'hung_up', path: ['greeting'] },
  { id: 'p3', agent: BETA, start: '2026-11-05T11:00:00Z', seconds: 120, outcome: 'completed', path: ['greeting', 'lookup'], calls: ['lookup_order:error'] },
  { id: 'p4', agent: BETA, start: '2026-11-06T12:00:00Z', seconds: 90, outcome: 'transferred', path: ['identify', 'transfer_to_human'] },
  { id: 'c1', agent: ALPHA, start: '2026-11-09T09:00:00Z', seconds: 40, outcome: 'completed', path: ['greeting', 'faq'], calls: ['find_customer:ok'] },
  { id: 'c2', agent: ALPHA, start: '2026-11-09T10:00:00Z', seconds: 100, outcome: 'transferred', path: ['greeting', 'transfer_to_human'], calls: ['find_customer:timeout'] },
  { id: 'c3', agent: ALPHA, start: '2026-11-10T09:30:00Z', seconds: 8, outcome: 'hung_up', path: ['greeting'] },
  { id: 'c4', agent: ALPHA, start: '2026-11-11T14:00:00Z', seconds: 70, outcome: 'completed', path: ['greeting', 'faq'], calls: ['find_customer:ok', 'lookup_order:error'] },
  { id: 'c5', agent: BETA, start: '2026-11-09T11:00:00Z', seconds: 200, outcome: 'completed', path: ['greeting', 'lookup'], calls: ['lookup_order:ok'] },
  { id: 'c6', agent: BETA, start: '2026-11-12T15:00:00Z', seconds: 20, outcome: 'hung_up', path: ['greeting', 'identify'] },
  { id: 'c7', agent: BETA, start: '2026-11-12T16:00:00Z', seconds: 650, outcome: 'transferred', path: ['identify', 'transfer_to_human'], calls: ['lookup_order:timeout', 'lookup_order:ok'] },
  { id: 'c8', agent: BETA, start: '2026-11-15T20:00:00Z', seconds: null, outcome: null, path: ['greeting'] },
];

/** The conversation id of a row above (p1 … c8) as stored. */
export function handId(name: string): string {
  const n = SPECS.findIndex((s) => s.id === name) + 1;
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

function at(start: string, seconds: number): string {
  return new Date(Date.parse(start) + seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function detail(spec: Spec): ConversationDetail {
  const voice = spec.agent === ALPHA;
  const calls: ToolCallEntry[] = (spec.calls ?? []).map((call, i) => {
    const [slug, status] = call.split(':') as [string, string];
    return {
      at: at(spec.start, 5 + i),
      tool_id: slug === 'find_customer' ? FIND : LOOKUP,
      slug,
      node_key: spec.path[spec.path.length - 1]!,
      status,
      input_redacted: {},
      output_redacted: status === 'ok' ? { ok: true } : { error: status },
    };
  });
  return {
    id: handId(spec.id),
    agent_id: spec.agent,
    channel: voice ? 'voice' : 'chat',
    direction: 'inbound',
    session_ref: null,
    page_url: null,
    started_at: spec.start,
    ended_at: spec.seconds === null ? null : at(spec.start, spec.seconds),
    duration_sec: spec.seconds,
    message_count: spec.seconds === 8 ? 2 : 10,
    outcome: spec.outcome,
    summary: null,
    transcript: [],
    tool_calls: calls,
    node_path: spec.path.map((node_key, i) => ({ at: at(spec.start, i), node_key })),
  };
}

/** Writes the dataset into a new DuckDB file at `dbPath`, as one finished sync run. */
export async function writeHandDataset(dbPath: string): Promise<void> {
  const counters: RunCounters = { requests: 0, throttled: 0, retries: 0, conversationsListed: 12, detailsFetched: 12, detailsCoerced: 0, detailsSetAside: 0, conversationsDeleted: 0, errors: 0 };
  await Database.with(dbPath, async (db) => {
    const runId = await startRun(db, new Date(SYNCED_AT.getTime() - 60_000), HAND_SPACE, null, SYNCED_AT);
    await saveDimensions(
      db,
      HAND_SPACE,
      SYNCED_AT,
      [
        { id: ALPHA, body: JSON.stringify({ id: ALPHA, name: 'Alpha Desk' }) },
        { id: BETA, body: JSON.stringify({ id: BETA, name: 'Beta Chat' }) },
      ],
      [
        { id: FIND, body: JSON.stringify({ id: FIND, slug: 'find_customer', name: 'Find customer' }) },
        { id: LOOKUP, body: JSON.stringify({ id: LOOKUP, slug: 'lookup_order', name: 'Look up order' }) },
      ],
    );
    const details = SPECS.map((s) => fetchedDetail(handId(s.id), SYNCED_AT, JSON.stringify({ data: detail(s) })));
    await saveDetails(db, HAND_SPACE, details, [], runId, counters);
    await finishRun(db, runId, SYNCED_AT, 'ok', counters, null);
  });
}
