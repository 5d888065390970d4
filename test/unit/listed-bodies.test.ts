import { describe, expect, it } from 'vitest';
import { bodyHash, ListedBodies } from '../../src/crawler/listed-bodies.js';

describe('ListedBodies', () => {
  it('passes an entry until it is remembered, then only when its body changed', () => {
    const listed = new ListedBodies();
    const open = { id: 'a', body: '{"id":"a","outcome":null}' };
    const other = { id: 'b', body: '{"id":"b"}' };
    expect(listed.unstored([open, other])).toEqual([open, other]);
    listed.remember([open]);
    expect(listed.unstored([open, other])).toEqual([other]);
    const finished = { id: 'a', body: '{"id":"a","outcome":"completed"}' };
    expect(listed.unstored([finished])).toEqual([finished]);
    listed.clear();
    expect(listed.unstored([open])).toEqual([open]);
  });

  it('hashes equal text equal and near-identical text apart', () => {
    expect(bodyHash('{"id":"a"}')).toBe(bodyHash('{"id":"a"}'));
    const hashes = new Set(Array.from({ length: 10_000 }, (_, i) => bodyHash(`{"id":"${i}","n":${i % 7}}`)));
    expect(hashes.size).toBe(10_000);
    expect(Number.isSafeInteger(bodyHash('x'))).toBe(true);
  });
});
