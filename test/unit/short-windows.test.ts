// Short listing windows: their span, and the sync_errors line people read (src/store/listing-gaps.ts).
// status reads gaps from the listing_gaps table; the old sentences are read only by migration 8 (schema-8.test.ts).
import { describe, expect, it } from 'vitest';
import { combineShortWindows, describeShortWindow } from '../../src/store/listing-gaps.js';

describe('short windows', () => {
  it('spans several short windows and sums their counts', () => {
    expect(
      combineShortWindows([
        { fromMs: 5_000, toMs: 6_000, counted: 3, served: 2 },
        { fromMs: 1_000, toMs: 2_000, counted: 10, served: 7 },
      ]),
    ).toEqual({ fromMs: 1_000, toMs: 6_000, counted: 13, served: 9 });
    expect(combineShortWindows([{ fromMs: null, toMs: 2_000, counted: 1, served: 0 }])!.fromMs).toBeNull();
    expect(combineShortWindows([])).toBeNull();
  });
  it('says which window is short and by how many', () => {
    const w = { fromMs: Date.parse('2026-11-01T00:00:00Z'), toMs: Date.parse('2026-11-02T00:00:00.500Z'), counted: 451, served: 450 };
    const text = describeShortWindow(w);
    expect(text).toBe(
      'listing 2026-11-01T00:00:00Z..2026-11-02T00:00:00.500Z is short: the server counts 451 conversations, 450 were served',
    );
    const open = { fromMs: null, toMs: Date.parse('2026-11-02T00:00:00Z'), counted: 1, served: 0 };
    expect(describeShortWindow(open)).toBe(
      'listing beginning..2026-11-02T00:00:00Z is short: the server counts 1 conversation, 0 were served',
    );
  });
});
