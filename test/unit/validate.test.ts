// Whether a conversation detail is usable (src/crawler/validate.ts).
import { describe, expect, it } from 'vitest';
import { detailProblem, nestsTooDeep } from '../../src/crawler/validate.js';

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
