// Contract tests of the simulator's real-data mode (startSimulator's realData, sim.realData),
// over real HTTP to an in-process server on an ephemeral 127.0.0.1 port.

import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConversationDetail, ConversationSummary, ListResponse } from '../src/api/types.js';
import { DRIFT_KINDS, startSimulator, type DriftKind, type Simulator, type SimulatorOptions } from '../src/simulator/index.js';
import { runCli, startCli } from './support/cli.js';
import { clientView, listEntryText, showsDrift, toWellFormed, unsigned } from './support/real-data-client.js';

const NOW = new Date('2026-03-02T12:00:00Z');
const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 2_000 });
const started: Simulator[] = [];

afterAll(async () => {
  for (const sim of started) await sim.close();
  await dispatcher.close();
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ now: NOW, seed: 11, conversations: 300, rateLimit: 1_000_000, ...options });
  started.push(sim);
  return sim;
}

async function get(sim: Simulator, path: string, query: Record<string, string | number> = {}): Promise<{ status: number; text: string }> {
  const url = new URL(`${sim.baseUrl}/spaces/${sim.space}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await request(url, { headers: { authorization: `Bearer ${sim.apiKey}` }, dispatcher });
  return { status: res.statusCode, text: await res.body.text() };
}

async function detail(sim: Simulator, id: string): Promise<{ status: number; text: string; data: Record<string, unknown> }> {
  const r = await get(sim, `/conversations/${id}`);
  return { ...r, data: r.status === 200 ? (JSON.parse(r.text) as { data: Record<string, unknown> }).data : {} };
}

/** The raw list page text holding `id` (listed by its start instant), and its parsed entry. */
async function listed(sim: Simulator, id: string): Promise<{ text: string; entry: Record<string, unknown> }> {
  const at = sim.dataset.record(id)!.summary.started_at;
  const page = await get(sim, '/conversations', { from: at, to: at, per_page: 200 });
  expect(page.status).toBe(200);
  const text = listEntryText(page.text, id);
  return { text, entry: JSON.parse(text) as Record<string, unknown> };
}

async function allPages(sim: Simulator, perPage: number): Promise<{ texts: string[]; ids: string[]; total: number }> {
  const texts: string[] = [];
  let body: ListResponse<ConversationSummary>;
  let page = 1;
  do {
    const r = await get(sim, '/conversations', { per_page: perPage, page: page++ });
    texts.push(r.text);
    body = JSON.parse(r.text) as ListResponse<ConversationSummary>;
  } while (body.meta.next_page !== null);
  const ids = texts.flatMap((t) => (JSON.parse(t) as ListResponse<ConversationSummary>).data.map((c) => c.id));
  return { texts, ids, total: body.meta.total };
}

const finishedIds = (sim: Simulator): string[] => sim.dataset.conversations.filter((c) => c.outcome !== null).map((c) => c.id);
const seconds = (a: unknown, b: unknown): number => (Date.parse(String(b)) - Date.parse(String(a))) / 1000;
/** A lone high surrogate escape: \ud83d not followed by a low one. */
const LONE_HIGH = /\\ud83d(?!\\ud[c-f])/;

describe('long conversations', () => {
  it('serves 10,000 turns in a body of about the asked size, consistent with its list entry', async () => {
    const sim = await simulator();
    const id = finishedIds(sim)[40]!;
    const generated = sim.dataset.record(id)!.summary.message_count;
    sim.realData.set(id, { long: { turns: 10_000, payloadBytes: 20_000_000 } });
    const r = await detail(sim, id);
    expect(r.status).toBe(200);
    const bytes = Buffer.byteLength(r.text);
    expect(Math.abs(bytes - 20_000_000)).toBeLessThan(200_000);
    const d = r.data as unknown as ConversationDetail;
    expect(d.transcript!.length).toBe(10_000);
    expect(d.message_count).toBe(10_000);
    expect(d.duration_sec).toBe(seconds(d.started_at, d.ended_at));
    const times = [...d.transcript!, ...d.tool_calls, ...d.node_path].map((e) => Date.parse(e.at));
    expect(Math.max(...times)).toBeLessThanOrEqual(Date.parse(d.ended_at!));
    d.transcript!.forEach((t, i) => i > 0 && expect(Date.parse(t.at)).toBeGreaterThanOrEqual(Date.parse(d.transcript![i - 1]!.at)));
    const added = d.transcript!.slice(generated);
    added.forEach((t, i) => i > 0 && expect(t.speaker).not.toBe(added[i - 1]!.speaker));
    const agent = sim.dataset.agents.find((a) => a.id === d.agent_id)!;
    for (const t of added) expect(Object.keys(agent.workflow.nodes)).toContain(t.node_key);
    const sizes = d.tool_calls.map((c) => JSON.stringify(c.input_redacted).length + JSON.stringify(c.output_redacted).length);
    expect(Math.max(...sizes)).toBeGreaterThan(10_000);
    expect(d.tool_calls.some((c) => typeof c.output_redacted === 'object' && c.output_redacted !== null)).toBe(true);

    const { entry } = await listed(sim, id);
    expect([entry.message_count, entry.duration_sec, entry.ended_at]).toEqual([10_000, d.duration_sec, d.ended_at]);
    const truth = sim.realData.truth(id);
    expect(truth.long).toEqual({ turns: 10_000, bodyBytes: bytes });
    expect(truth.expect).toBe('exact');
    expect(unsigned(truth.meant)).toEqual(clientView(r.data));
  });

  it('draws long conversations among the finished ones only, in longTurns, with timestamps in the served form', async () => {
    const sim = await simulator({ conversations: 200, timeFormat: 'offset', realData: { long: 0.05, longTurns: [1000, 1400] } });
    const ids = sim.realData.mutatedIds();
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(40);
    const open = new Set(sim.dataset.openRecords().map((r) => r.id));
    expect(open.size).toBeGreaterThan(0);
    for (const id of ids) {
      expect(open.has(id)).toBe(false);
      const d = (await detail(sim, id)).data as unknown as ConversationDetail;
      expect(d.message_count).toBe(d.transcript!.length);
      expect(d.message_count).toBeGreaterThanOrEqual(1000);
      expect(d.message_count).toBeLessThanOrEqual(1400);
      expect(d.duration_sec).toBe(seconds(d.started_at, d.ended_at));
      expect(d.transcript!.at(-1)!.at).toMatch(/[+-]\d\d:\d\d$/);
      const { entry } = await listed(sim, id);
      expect([entry.message_count, entry.ended_at]).toEqual([d.message_count, d.ended_at]);
    }
    for (const id of open) expect(sim.realData.truth(id).long).toBeNull();
  });
});

describe('hard text', () => {
  it('serves lone surrogate escapes in the detail and the list entry; meant has U+FFFD there and keeps the rest', async () => {
    const sim = await simulator();
    const id = finishedIds(sim).find((c) => (sim.dataset.record(c)!.summary.message_count ?? 0) >= 6)!;
    sim.realData.set(id, { text: true });
    const r = await detail(sim, id);
    expect(r.text).toMatch(LONE_HIGH);
    expect(r.text).toMatch(/(?<!\\ud[89ab][0-9a-f]{2})\\ude00/);
    for (const piece of ['👩🏽‍💻', '👨‍👩‍👧', 'مرحبا', 'שלום', '\u2028', '\u2029', '\u200b', '\ufeff', '\\u0000', '\\t', '\\r\\n', '\\\\', '\\"']) {
      expect(r.text).toContain(piece);
    }
    const texts = (r.data.transcript as { text: string }[]).map((t) => t.text);
    expect(texts.some((t) => /[A-Za-z]{100000}/.test(t))).toBe(true);
    const { text: entryText, entry } = await listed(sim, id);
    expect(entryText).toMatch(LONE_HIGH);
    expect(entry.summary).toBe(r.data.summary);

    const truth = sim.realData.truth(id);
    expect(truth.text).toBe(true);
    expect(truth.expect).toBe('coerced');
    expect(truth.meant!.summary).toBe(toWellFormed(r.data.summary as string));
    expect(truth.meant!.summary).toContain('\ufffd');
    expect(JSON.stringify(truth.meant)).not.toMatch(LONE_HIGH);
    expect(JSON.stringify(truth.meant)).toContain('\\u0000');
    expect(unsigned(truth.meant)).toEqual(clientView(r.data));
    expect(truth.meantSummary).toEqual(clientView(entry));
  });

  it('without lone surrogates the text is hard but exact', async () => {
    const sim = await simulator();
    const id = finishedIds(sim)[7]!;
    sim.realData.set(id, { text: true, loneSurrogates: false });
    const r = await detail(sim, id);
    expect(r.text).not.toMatch(/\\ud[89a-f]/);
    expect(r.text).toContain('👨‍👩‍👧');
    const truth = sim.realData.truth(id);
    expect(truth.expect).toBe('exact');
    expect(unsigned(truth.meant)).toEqual(unsigned(r.data));
  });
});

const EXPECTED: Record<DriftKind, string> = {
  number_string: 'coerced',
  turn_without_at: 'coerced',
  float_integer: 'exact',
  null_list: 'exact',
  missing_optional: 'exact',
  extra_fields: 'exact',
  unknown_enum: 'exact',
  list_as_object: 'set_aside',
  bad_date: 'set_aside',
  word_number: 'set_aside',
  fractional: 'set_aside',
  turn_bad_at: 'set_aside',
};

describe('type drift', () => {
  it('serves each kind as described and labels it', async () => {
    const sim = await simulator();
    // Chat conversations have a session_ref, so missing_optional really drops something.
    const ids = sim.dataset.conversations.filter((c) => c.outcome !== null && c.channel === 'chat').map((c) => c.id);
    for (const [i, kind] of DRIFT_KINDS.entries()) {
      const id = ids[i]!;
      sim.realData.set(id, { drift: [kind] });
      const r = await detail(sim, id);
      const others = DRIFT_KINDS.filter((k) => k !== kind && showsDrift(k, r.text, r.data));
      expect([kind, showsDrift(kind, r.text, r.data), others]).toEqual([kind, true, []]);
      const truth = sim.realData.truth(id);
      expect([kind, truth.drift, truth.expect]).toEqual([kind, [kind], EXPECTED[kind]]);
      const { text: entryText, entry } = await listed(sim, id);
      if (kind === 'number_string') expect(entryText).toMatch(/"(duration_sec|message_count)":"\d+"/);
      if (kind === 'float_integer') expect(entryText).toMatch(/"message_count":\d+\.0,/);
      if (kind === 'extra_fields') expect(entry.sentiment_v2).toEqual(r.data.sentiment_v2);
      if (kind === 'unknown_enum') expect(entry.outcome).toBe('voicemail');
      if (kind === 'bad_date') expect(Number.isFinite(Date.parse(String(entry.started_at)))).toBe(true);
      expect(truth.meantSummary).toEqual(clientView(entry));
      if (EXPECTED[kind] === 'set_aside') expect(truth.meant).toBeNull();
      else expect([kind, unsigned(truth.meant)]).toEqual([kind, clientView(r.data)]);
    }
    const text = (await detail(sim, ids[2]!)).text;
    expect(text).toContain(`"message_count":${sim.realData.truth(ids[2]!).meant!.message_count}.0,`);
    const voicemail = await get(sim, '/conversations', { outcome: 'voicemail', per_page: 200 });
    expect(voicemail.text).toContain(ids[DRIFT_KINDS.indexOf('unknown_enum')]!);
  });

  it('ranks set_aside over coerced, refuses kinds that write the same field', async () => {
    const sim = await simulator();
    const [a, b, c] = finishedIds(sim);
    sim.realData.set(a!, { drift: ['number_string', 'bad_date'] });
    expect(sim.realData.truth(a!).expect).toBe('set_aside');
    sim.realData.set(b!, { text: true, drift: ['extra_fields'] });
    expect(sim.realData.truth(b!).expect).toBe('coerced');
    expect(() => sim.realData.set(c!, { drift: ['word_number', 'fractional'] })).toThrow(/conflict/);
  });

  it.each([
    ['a plain space', {}],
    ['a confidential space with offsets', { confidential: true, timeFormat: 'offset' }],
  ] as [string, SimulatorOptions][])('drawn from the shares in %s: served as truth says, the client view equals meant', async (_name, extra) => {
    const sim = await simulator({ ...extra, realData: { text: 0.15, drift: 0.3, deleted: 0.05, long: 0.02, longTurns: [1000, 1100] } });
    const ids = sim.realData.mutatedIds();
    const finished = finishedIds(sim).length;
    expect(ids.length).toBeGreaterThan(finished * 0.3);
    expect(ids.length).toBeLessThan(finished * 0.65);
    const seen = new Set<string>();
    for (const id of ids) {
      const truth = sim.realData.truth(id);
      const r = await detail(sim, id);
      if (truth.deleted) {
        expect(r.status).toBe(404);
        continue;
      }
      expect(r.status).toBe(200);
      expect(truth.drift.length).toBeLessThanOrEqual(3);
      for (const k of truth.drift) seen.add(k);
      expect([id, DRIFT_KINDS.filter((k) => showsDrift(k, r.text, r.data))]).toEqual([id, truth.drift]);
      if (truth.meant) expect([id, unsigned(truth.meant)]).toEqual([id, clientView(r.data)]);
      expect(truth.meant === null).toBe(truth.expect === 'set_aside');
      const setAside = truth.drift.some((k) => EXPECTED[k] === 'set_aside');
      const coerced = !setAside && (LONE_HIGH.test(r.text) || truth.drift.some((k) => EXPECTED[k] === 'coerced'));
      expect([id, truth.expect]).toEqual([id, setAside ? 'set_aside' : coerced ? 'coerced' : 'exact']);
    }
    expect(seen.size).toBeGreaterThan(6);
  });
});

describe('deletions', () => {
  it('a deleted conversation stays listed and its detail answers 404 like an unknown one', async () => {
    const sim = await simulator();
    const id = finishedIds(sim)[12]!;
    const before = await allPages(sim, 200);
    sim.realData.set(id, { deleted: true });
    const r = await get(sim, `/conversations/${id}`);
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknown = await get(sim, `/conversations/${unknownId}`);
    expect(r.status).toBe(404);
    expect(r.text).toBe(unknown.text.replace(unknownId, id));
    const after = await allPages(sim, 200);
    expect(after.total).toBe(before.total);
    expect(after.ids).toContain(id);
    const truth = sim.realData.truth(id);
    expect([truth.deleted, truth.expect, truth.meant]).toEqual([true, 'deleted', null]);
    expect(truth.meantSummary).toEqual(clientView((await listed(sim, id)).entry));
  });

  it('vanished conversations leave the lists: totals drop, later pages shift, details 404', async () => {
    const sim = await simulator({ unstableTies: false });
    const before = await allPages(sim, 20);
    const page1 = JSON.parse(before.texts[0]!) as ListResponse<ConversationSummary>;
    const gone = [before.ids[3]!, before.ids[25]!];
    sim.realData.vanish(gone);
    const after = await allPages(sim, 20);
    expect(after.total).toBe(page1.meta.total - 2);
    expect(after.ids).toEqual(before.ids.filter((id) => !gone.includes(id)));
    const page2 = JSON.parse((await get(sim, '/conversations', { per_page: 20, page: 2 })).text) as ListResponse<ConversationSummary>;
    expect(page2.data[0]!.id).toBe(before.ids[21]);
    for (const id of gone) {
      expect((await get(sim, `/conversations/${id}`)).status).toBe(404);
      const truth = sim.realData.truth(id);
      expect([truth.vanished, truth.expect, truth.meant, truth.meantSummary]).toEqual([true, 'deleted', null, null]);
    }
    expect(sim.realData.mutatedIds()).toEqual(before.ids.filter((id) => gone.includes(id)));
  });
});

describe('determinism and defaults', () => {
  const OPTIONS: SimulatorOptions = { seed: 23, conversations: 250, realData: { text: 0.2, drift: 0.2, deleted: 0.05, long: 0.02, longTurns: [1000, 1200] } };

  it('the same seed and options serve identical bytes; another seed does not', async () => {
    const [a, b, c] = await Promise.all([simulator(OPTIONS), simulator(OPTIONS), simulator({ ...OPTIONS, seed: 24 })]);
    expect(a.realData.mutatedIds()).toEqual(b.realData.mutatedIds());
    expect(c.realData.mutatedIds()).not.toEqual(a.realData.mutatedIds());
    expect((await allPages(a, 50)).texts).toEqual((await allPages(b, 50)).texts);
    const strip = (t: string): string => t.replace(/http:\/\/127\.0\.0\.1:\d+/g, '').replace(/\?X-Amz-[^"]*/g, '');
    for (const id of a.realData.mutatedIds()) expect(strip((await get(a, `/conversations/${id}`)).text)).toBe(strip((await get(b, `/conversations/${id}`)).text));
  });

  it('without realData (or with every share 0) the served bytes are those of the dataset', async () => {
    const [plain, zero] = await Promise.all([simulator({ seed: 31 }), simulator({ seed: 31, realData: { long: 0, text: 0, drift: 0, deleted: 0 } })]);
    expect(plain.realData.mutatedIds()).toEqual([]);
    const pages = await allPages(plain, 200);
    expect((await allPages(zero, 200)).texts).toEqual(pages.texts);
    const listed = pages.texts.flatMap((t) => (JSON.parse(t) as ListResponse<ConversationSummary>).data);
    expect(listed).toEqual(plain.dataset.conversations);
    for (const id of pages.ids.slice(0, 40)) {
      const r = await detail(plain, id);
      const strip = (t: string): string => t.replace(/http:\/\/127\.0\.0\.1:\d+/g, '').replace(/\?X-Amz-[^"]*/g, '');
      expect(strip((await detail(zero, id)).text)).toBe(strip(r.text));
      expect(unsigned(r.data)).toEqual(unsigned(plain.dataset.detail(id)!));
    }
  });
});

describe('convoduck simulate flags', () => {
  it('reject a share outside 0..1 with one line and exit 2', async () => {
    for (const flag of ['--long', '--messy-text', '--drift', '--deleted']) {
      const r = await runCli(['simulate', '--port', '0', flag, '1.5']);
      expect([flag, r.code, r.stderr.trim().split('\n').length]).toEqual([flag, 2, 1]);
      expect(r.stderr).toContain(flag);
    }
  });

  it('shows the flags in --help and the shares in the banner', async () => {
    const help = await runCli(['simulate', '--help']);
    for (const flag of ['--long', '--messy-text', '--drift', '--deleted']) expect(help.stdout).toContain(flag);
    const { child, done } = startCli(['simulate', '--port', '0', '--conversations', '50', '--long', '0.5', '--drift', '0.05']);
    let stderr = '';
    await new Promise<void>((resolve) => child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d).includes('Ctrl-C') && resolve()));
    child.kill('SIGTERM');
    await done;
    expect(stderr).toMatch(/real data: 50% long, 5% type drift/);
  });
});
