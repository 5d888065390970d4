import { describe, expect, it } from 'vitest';
import { ownsSpace, resolveShardSpec, shardOf } from '../../src/shared/shards.js';

const slugs = Array.from({ length: 400 }, (_, i) => `space-${i}`);

describe('shardOf', () => {
  it('gives every space exactly one owner, spread over the shards', () => {
    const counts = [0, 0, 0];
    for (const s of slugs) {
      const owners = [0, 1, 2].filter((i) => ownsSpace({ count: 3, index: i }, s));
      expect(owners).toHaveLength(1);
      counts[owners[0]!]!++;
    }
    for (const c of counts) expect(c).toBeGreaterThan(80);
  });

  it('moves only spaces that go to the new shard when the count grows', () => {
    let moved = 0;
    for (const s of slugs) {
      const before = shardOf(s, 3);
      const after = shardOf(s, 4);
      if (after !== before) {
        expect(after).toBe(3);
        moved++;
      }
    }
    // about a quarter must move to fill the new shard; hash-mod-N would move about three quarters
    expect(moved).toBeGreaterThan(50);
    expect(moved).toBeLessThan(160);
  });

  it('lets a pinned shard win, and refuses one outside the job', () => {
    expect(shardOf('space-1', 3, 2)).toBe(2);
    expect(() => shardOf('space-1', 3, 3)).toThrow(/pinned to shard 3/);
  });
});

describe('resolveShardSpec', () => {
  it('reads the index from the flag, else JOB_COMPLETION_INDEX', () => {
    expect(resolveShardSpec(undefined, undefined, {})).toBeNull();
    expect(resolveShardSpec('3', '1', { JOB_COMPLETION_INDEX: '2' })).toEqual({ count: 3, index: 1 });
    expect(resolveShardSpec('3', undefined, { JOB_COMPLETION_INDEX: '2' })).toEqual({ count: 3, index: 2 });
  });

  it('refuses what is not a shard', () => {
    expect(() => resolveShardSpec('3', undefined, {})).toThrow(/JOB_COMPLETION_INDEX/);
    expect(() => resolveShardSpec('3', '3', {})).toThrow(/not a shard of 0 … 2/);
    expect(() => resolveShardSpec('0', '0', {})).toThrow(/≥ 1/);
    expect(() => resolveShardSpec(undefined, '1', {})).toThrow(/without --shard-count/);
    expect(() => resolveShardSpec('x', '0', {})).toThrow(/whole number/);
  });
});
