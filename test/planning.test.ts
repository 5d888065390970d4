// Pure planning and parsing: no server needed.
import { describe, expect, it } from 'vitest';
import { countInWindow, parseDetailsMode, planWindow, splitWindow } from '../src/crawler/plan.js';
import { detailProblem, nestsTooDeep } from '../src/crawler/validate.js';
import { checkApiKey, checkBaseUrl, resolveApiSettings } from '../src/crawler/settings.js';
import { parseDurationArg, parsePositiveInt, parseTimeArg } from '../src/cli/parse.js';

const now = new Date('2026-11-21T12:00:00Z');
const hour = 3_600_000;

describe('planWindow', () => {
  it('lists everything up to the run start on the first run', () => {
    expect(planWindow({ now, watermark: null, overlapMs: hour })).toEqual({ from: null, to: now, advancesWatermark: true });
  });
  it('starts an incremental run one overlap before the watermark', () => {
    const watermark = new Date('2026-11-20T00:00:00Z');
    const w = planWindow({ now, watermark, overlapMs: hour });
    expect(w.from?.toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(w.to).toBe(now);
    expect(w.advancesWatermark).toBe(true);
  });
  it('re-lists everything with full', () => {
    const w = planWindow({ now, watermark: new Date('2026-11-20T00:00:00Z'), overlapMs: hour, full: true });
    expect(w.from).toBeNull();
  });
  it('never moves the watermark for a bounded backfill or one that leaves a hole', () => {
    const watermark = new Date('2026-11-10T00:00:00Z');
    const until = new Date('2026-11-05T00:00:00Z');
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-01'), until }).advancesWatermark).toBe(false);
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-15') }).advancesWatermark).toBe(false);
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-01') }).advancesWatermark).toBe(true);
    expect(planWindow({ now, watermark: null, overlapMs: hour, since: new Date('2026-11-01'), until }).to).toEqual(until);
  });
});

describe('splitWindow and countInWindow', () => {
  it('splits into inclusive halves that neither overlap nor leave a gap', () => {
    const halves = splitWindow(0, 1001);
    expect(halves).toEqual([
      [0, 500],
      [501, 1001],
    ]);
    expect(splitWindow(5, 5)).toBeNull();
  });
  it('counts inclusively on both ends', () => {
    expect(countInWindow([1, 2, 3, 4, 5], 2, 4)).toBe(3);
  });
});

describe('parseDetailsMode', () => {
  it('accepts all, none and outcome lists', () => {
    expect(parseDetailsMode('all')).toEqual({ kind: 'all' });
    expect(parseDetailsMode('none')).toEqual({ kind: 'none' });
    expect(parseDetailsMode('failed, transferred')).toEqual({ kind: 'first', outcomes: ['failed', 'transferred'] });
    expect(parseDetailsMode('')).toBeNull();
    expect(parseDetailsMode("x';drop")).toBeNull();
  });
});

describe('detailProblem', () => {
  const good = {
    data: {
      id: 'c1',
      started_at: '2026-11-01T10:00:00Z',
      ended_at: null,
      duration_sec: null,
      message_count: 1,
      transcript: [{ at: '2026-11-01T10:00:01Z', speaker: 'caller', text: 'hi', node_key: 'greeting' }],
      tool_calls: [],
      node_path: [{ at: '2026-11-01T10:00:00Z', node_key: 'greeting' }],
    },
  };
  it('accepts a well-formed detail', () => {
    expect(detailProblem(good, 'c1')).toBeNull();
  });
  it.each([
    ['no data', {}, /data/],
    ['another id', { data: { ...good.data, id: 'c2' } }, /c2/],
    ['a transcript that is an object', { data: { ...good.data, transcript: { a: 1 } } }, /transcript is not an array/],
    ['a date that does not parse', { data: { ...good.data, started_at: 'yesterday-ish' } }, /started_at/],
    ['a number given as a string', { data: { ...good.data, message_count: '12' } }, /message_count/],
    ['an entry with a bad time', { data: { ...good.data, node_path: [{ at: 5, node_key: 'x' }] } }, /node_path\[0\]\.at/],
  ])('rejects %s', (_name, body, reason) => {
    expect(detailProblem(body, 'c1')).toMatch(reason);
  });
  it('flags nesting DuckDB cannot store', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(nestsTooDeep({ data: deep })).toBe(true);
    expect(nestsTooDeep(good)).toBe(false);
  });
});

describe('API settings', () => {
  it('requires https off loopback and the /api/v1 segment', () => {
    expect(checkBaseUrl('http://127.0.0.1:8080/api/v1/')).toBe('http://127.0.0.1:8080/api/v1');
    expect(checkBaseUrl('https://api.example.com/api/v1')).toBe('https://api.example.com/api/v1');
    expect(() => checkBaseUrl('http://api.example.com/api/v1')).toThrow(/https/);
    expect(() => checkBaseUrl('https://api.example.com/')).toThrow(/\/api\/v1/);
    expect(() => checkBaseUrl('not a url')).toThrow(/not a URL/);
  });
  it('takes the key from the environment or a file, and says which is missing', () => {
    expect(resolveApiSettings({}, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1', CONVODUCK_API_KEY: 'np_abc\n' })).toEqual({
      baseUrl: 'http://localhost:1/api/v1',
      apiKey: 'np_abc',
    });
    expect(() => resolveApiSettings({}, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1' })).toThrow(/CONVODUCK_API_KEY/);
    expect(() => resolveApiSettings({ apiKeyFile: '/nonexistent/key' }, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1' })).toThrow(
      /cannot read the key file/,
    );
    expect(() => checkApiKey('sk_live_123', 'CONVODUCK_API_KEY')).toThrow(/np_/);
  });
});

describe('flag parsers', () => {
  it('reads ISO dates, durations back from now and named days', () => {
    expect(parseTimeArg('--from', '2026-11-01', now).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseTimeArg('--from', '2026-11-01T08:30:00+02:00', now).toISOString()).toBe('2026-11-01T06:30:00.000Z');
    expect(parseTimeArg('--from', '7d', now).toISOString()).toBe('2026-11-14T12:00:00.000Z');
    expect(parseTimeArg('--from', '24h', now).toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(parseTimeArg('--from', 'yesterday', now).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(() => parseTimeArg('--from', '2026-13-45', now)).toThrow(/--from "2026-13-45" is not a time/);
    expect(() => parseTimeArg('--from', 'soon', now)).toThrow(/is not a time/);
  });
  it('reads durations and positive integers', () => {
    expect(parseDurationArg('--overlap', '90m')).toBe(90 * 60_000);
    expect(() => parseDurationArg('--overlap', '-1h')).toThrow(/not a duration/);
    expect(parsePositiveInt('--max-rpm', '45')).toBe(45);
    expect(() => parsePositiveInt('--max-rpm', '0')).toThrow(/above 0/);
    expect(() => parsePositiveInt('--max-rpm', '1.5')).toThrow(/whole number/);
  });
});
