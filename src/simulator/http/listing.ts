// How the simulator pages its lists, in the readings the spec leaves open:
// a server that serves fewer items than asked (servedPerPage, reported in meta.per_page or not:
// perPageAsAsked), one that announces a next page
// whenever a page is full (nextPageOnFullPage), and one that counts conversations in `total`
// that it never lists (hidden conversations); and the unstable order of ties.

import type { ListMeta } from '../../api/types.js';

export interface PagingReading {
  /** cap on the page size actually served (null: serve what was asked) */
  servedPerPage: number | null;
  /** next_page = page + 1 whenever the page is full, even the last one */
  nextPageOnFullPage: boolean;
  /** meta.per_page says what was asked, whatever is served (a page size misreported) */
  perPageAsAsked: boolean;
}

/** The page size really served for a requested per_page. */
export function servedPageSize(requested: number, reading: PagingReading): number {
  const cap = reading.servedPerPage;
  return cap !== null && cap >= 1 ? Math.min(requested, Math.floor(cap)) : requested;
}

/**
 * meta of page `page` over `total` items at `served` per page. A page is full when all of its
 * positions lie inside `total` (a hidden conversation still takes its position).
 */
export function listMeta(page: number, served: number, total: number, reading: PagingReading, asked = served): ListMeta {
  const more = reading.nextPageOnFullPage ? page * served <= total : page * served < total;
  return { page, per_page: reading.perPageAsAsked ? asked : served, total, next_page: more ? page + 1 : null };
}

/**
 * `count` ids spread evenly over a newest-first list, never its first or last entry
 * (at most length − 2 of them).
 */
export function spreadIds(newestFirst: readonly { id: string }[], count: number): string[] {
  const n = Math.min(Math.max(0, Math.floor(count)), Math.max(0, newestFirst.length - 2));
  if (n === 0) return [];
  const step = (newestFirst.length - 1) / (n + 1);
  const ids: string[] = [];
  for (let i = 1; i <= n; i++) ids.push(newestFirst[Math.floor(i * step)]!.id);
  return ids;
}

/**
 * items[s, e) of a list sorted by `startMs` (descending), with every group of equal startMs
 * rotated by `turn`: ties come back in another order on every request, and a page boundary
 * inside a tie group can move its members between pages. [lo, hi) bounds the groups.
 */
export function sliceWithRotatedTies<T extends { startMs: number }>(items: readonly T[], lo: number, hi: number, s: number, e: number, turn: number): T[] {
  // Extend to whole tie groups at both ends, rotate every tie group, cut the page back out.
  let gs = s;
  while (gs > lo && items[gs - 1]!.startMs === items[s]!.startMs) gs--;
  let ge = e;
  while (ge < hi && items[ge]!.startMs === items[e - 1]!.startMs) ge++;
  const win = items.slice(gs, ge);
  for (let i = 0; i < win.length; ) {
    let j = i + 1;
    while (j < win.length && win[j]!.startMs === win[i]!.startMs) j++;
    const size = j - i;
    const r = turn % size;
    if (r !== 0) {
      const group = win.slice(i, j);
      for (let k = 0; k < size; k++) win[i + k] = group[(k + r) % size]!;
    }
    i = j;
  }
  return win.slice(s - gs, s - gs + (e - s));
}
