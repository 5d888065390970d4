// How a detail body becomes rows (src/store/normalise.ts): kept, coerced by a rule, or set aside.
import { describe, expect, it } from 'vitest';
import { nestsTooDeep } from '../../src/crawler/validate.js';
import { COERCIONS, detailState, normaliseDetail, normaliseDetailText, normaliseSummary, recordingLinkInText, wellFormedJson, type UsableDetail } from '../../src/store/normalise.js';
import { splitText } from '../../src/store/body-parts.js';

const good = {
  data: {
    id: 'c1',
    agent_id: 'a1',
    channel: 'chat',
    started_at: '2026-11-01T10:00:00Z',
    ended_at: '2026-11-01T10:01:15Z',
    duration_sec: 75,
    message_count: 1,
    outcome: 'completed',
    summary: 'asked about an order',
    transcript: [{ at: '2026-11-01T10:00:01Z', speaker: 'caller', text: 'hi', node_key: 'greeting' }],
    tool_calls: [
      { at: '2026-11-01T10:00:02Z', tool_id: 't1', slug: 'lookup', node_key: 'greeting', status: 'ok', input_redacted: { q: 'x' }, output_redacted: null },
    ],
    node_path: [{ at: '2026-11-01T10:00:00Z', node_key: 'greeting' }],
  },
};
const withData = (change: Record<string, unknown>) => ({ data: { ...good.data, ...change } });
const usable = (body: unknown): UsableDetail => {
  const n = normaliseDetail(body, 'c1');
  if (!n.usable) throw new Error(`set aside: ${n.reason}`);
  return n;
};

describe('normaliseDetail', () => {
  it('stores a well-formed detail exactly', () => {
    const n = usable(good);
    expect(detailState(n)).toBe('exact');
    expect(n.fields).toMatchObject({ duration_sec: '75', message_count: '1', outcome: 'completed', is_final: true });
    expect(n.turns).toEqual([{ at: '2026-11-01T10:00:01Z', speaker: 'caller', text: 'hi', node_key: 'greeting' }]);
    expect(n.toolCalls[0]).toMatchObject({ input: '{"q":"x"}', output: null });
    expect(n.drift).toEqual([]);
  });

  it('coerces numeric strings to integers and says so', () => {
    const n = usable(withData({ duration_sec: '75', message_count: ' 12 ' }));
    expect(n.fields.duration_sec).toBe('75');
    expect(n.fields.message_count).toBe('12');
    expect(detailState(n)).toBe('coerced');
    expect(n.drift).toContainEqual({ path: 'duration_sec', kind: 'coerced', note: COERCIONS.numericString });
  });

  it('reads a null list as empty and a missing turn time as NULL', () => {
    const n = usable(withData({ transcript: null, node_path: [{ node_key: 'greeting' }] }));
    expect(n.turns).toEqual([]);
    expect(n.visits).toEqual([{ at: null, node_key: 'greeting' }]);
    expect(n.drift).toContainEqual({ path: 'node_path[].at', kind: 'coerced', note: COERCIONS.missingTime });
  });

  it('replaces a lone surrogate with U+FFFD and keeps every other character', () => {
    const text = 'ok 👩🏽‍💻 مرحبا \u200b\u2028\u0000\t\r\n "q" \\ cut \ud83d';
    const n = usable(JSON.parse(JSON.stringify(withData({ summary: text, transcript: [{ ...good.data.transcript[0], text }] }))));
    expect(n.fields.summary).toBe(text.toWellFormed());
    expect(n.turns[0]!.text).toBe(text.slice(0, -1) + '\ufffd');
    expect(detailState(n)).toBe('coerced');
  });

  it('keeps unknown fields out of the rows and reports them with unknown values', () => {
    const n = usable(
      withData({
        sentiment_v2: { score: 1 },
        outcome: 'voicemail',
        transcript: [{ ...good.data.transcript[0], confidence: 0.9, speaker: 'system' }],
      }),
    );
    expect(detailState(n)).toBe('exact');
    expect(n.fields.outcome).toBe('voicemail');
    expect(n.drift).toEqual(
      expect.arrayContaining([
        { path: 'sentiment_v2', kind: 'unknown_field', note: 'object' },
        { path: 'transcript[].confidence', kind: 'unknown_field', note: 'number' },
        { path: 'outcome', kind: 'unknown_value', note: 'voicemail' },
        { path: 'transcript[].speaker', kind: 'unknown_value', note: 'system' },
      ]),
    );
  });

  it.each([
    ['no data', {}, /data/],
    ['another id', withData({ id: 'c2' }), /c2/],
    ['a transcript that is an object', withData({ transcript: { a: 1 } }), /^transcript is an object, not a list/],
    ['a start that does not parse', withData({ started_at: 'yesterday-ish' }), /^started_at/],
    ['a number in words', withData({ duration_sec: 'about a minute' }), /^duration_sec .*not a whole number/],
    ['a fraction', withData({ duration_sec: 75.5 }), /^duration_sec is 75.5/],
    ['an entry time that does not parse', withData({ node_path: [{ at: 5, node_key: 'x' }] }), /^node_path\[\]\.at/],
    ['text that is an object', withData({ summary: { text: 'x' } }), /^summary is an object/],
  ])('sets aside %s, with the reason', (_name, body, reason) => {
    const n = normaliseDetail(body, 'c1');
    expect(n.usable).toBe(false);
    if (!n.usable) expect(n.reason).toMatch(reason);
  });
});

describe('the recording link of a detail', () => {
  const link = 'https://rec.example/r/c1.wav?sig=abc';
  it('is decided from the body as it is read, set aside or not', () => {
    expect(normaliseDetail(withData({ recording_url: link }), 'c1').recordingLink).toBe(true);
    expect(normaliseDetail(withData({ recording_url: null }), 'c1').recordingLink).toBe(false);
    expect(normaliseDetail(good, 'c1').recordingLink).toBe(false);
    // only a string is a link, as the crawl downloads it
    expect(normaliseDetail(withData({ recording_url: 12 }), 'c1').recordingLink).toBe(false);
    const setAside = normaliseDetail(withData({ recording_url: link, started_at: 'the 3rd of never' }), 'c1');
    expect(setAside).toMatchObject({ usable: false, recordingLink: true });
  });

  it('is read from text DuckDB refuses: a string cut mid-surrogate; text that is not JSON has none', () => {
    // JSON.stringify writes a lone surrogate as its escape, as the API sends it: DuckDB's JSON reader refuses it
    const cut = JSON.stringify(withData({ recording_url: link, summary: 'ok \ud83d' }));
    expect(cut).toContain('"ok \\ud83d"');
    expect(normaliseDetailText(cut, 'c1')).toMatchObject({ usable: true, coerced: true, recordingLink: true });
    expect(recordingLinkInText(cut)).toBe(true);
    const notJson = JSON.stringify(withData({ recording_url: link, summary: 'a\u0001b' })).replace('\\u0001', '\u0001');
    expect(normaliseDetailText(notJson, 'c1')).toMatchObject({ usable: false, recordingLink: false });
    expect(recordingLinkInText(notJson)).toBe(false);
    expect(recordingLinkInText('')).toBe(false);
  });
});

describe('normaliseSummary', () => {
  it('reads what it can and leaves the rest NULL, never failing', () => {
    const f = normaliseSummary({ ...good.data, duration_sec: 'about a minute', message_count: '3', summary: 'cut \udc00' });
    expect(f).toMatchObject({ duration_sec: null, message_count: '3', summary: 'cut \ufffd', outcome: 'completed' });
    expect(normaliseSummary(null).started_at).toBeNull();
  });
});

describe('nestsTooDeep', () => {
  it('flags nesting DuckDB cannot keep as JSON', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(nestsTooDeep({ data: deep })).toBe(true);
    expect(nestsTooDeep(good)).toBe(false);
  });
});

describe('splitText', () => {
  it('splits a long body into parts that join back exactly, never inside a surrogate pair', () => {
    const text = 'ab😀cd😀'.repeat(1_000);
    for (const size of [3, 4, 5, 4_096]) {
      const parts = splitText(text, size);
      expect(parts.join('')).toBe(text);
      for (const p of parts) {
        expect(p.length).toBeLessThanOrEqual(size);
        expect(p.isWellFormed()).toBe(true);
      }
    }
    expect(splitText('')).toEqual([]);
  });
});

describe('wellFormedJson', () => {
  it('keeps text DuckDB reads as it is, a surrogate pair and an escaped backslash included', () => {
    for (const text of ['{"name":"Front desk 😀"}', '{"name":"\\ud83d\\ude00"}', '{"path":"C:\\\\ud83d"}', '{ "a" : [1, 2.50, 12345678901234567890] }']) {
      expect(wellFormedJson(text)).toBe(text);
    }
  });

  it('writes each lone surrogate, in a value or a key, as U+FFFD', () => {
    const text = '{"name":"cut \\ud83d","nodes":{"\\ude00k":{"title":["x\\udbff","ok \\ud83d\\ude00"]}}}';
    const fixed = wellFormedJson(text);
    expect(JSON.parse(fixed)).toEqual({ name: 'cut \ufffd', nodes: { '\ufffdk': { title: ['x\ufffd', 'ok 😀'] } } });
    expect(fixed.isWellFormed() && !/\\u[dD][89a-fA-F]/.test(fixed)).toBe(true);
  });

  it('returns text that is not JSON as it is', () => {
    expect(wellFormedJson('{"name":"\\ud83d"')).toBe('{"name":"\\ud83d"');
  });
});
