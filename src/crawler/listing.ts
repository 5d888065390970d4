// Lists a window of conversations and verifies it: a window counts as listed only when the
// distinct conversations seen in it reach the largest `meta.total` the server gave for it.
// Page counts follow what the server serves (meta.per_page, or what its first page held) and
// `next_page` is followed past them; a window that still does not add up is split and re-listed,
// within a budget, and reported short when it cannot be made to add up. A server whose count is
// off for good (soft-deleted rows, a cached count) is trusted once its caller has seen the same
// shortfall before (trustShortfall): the window is then complete with what was served.

import pLimit from 'p-limit';
import type { ConversationSummary, ListMeta } from '../api/types.js';
import { combineShortWindows, describeShortWindow, type ShortWindow } from '../store/listing-gaps.js';
import type { TimeWindow } from '../store/watermark.js';
import { countInWindow, pageCount, servedPageSize, splitShortWindow } from './plan.js';

export interface ListedPage {
  data: readonly ConversationSummary[];
  meta: ListMeta;
}

export interface WindowListerOptions {
  /** fetches (and stores) one page of the window */
  fetchPage(window: TimeWindow, page: number): Promise<ListedPage>;
  /** after each page's conversations are counted as seen (progress) */
  onPage?(): void;
  aborted(): boolean;
  /** pages of one window fetched at once */
  concurrency: number;
  /** listings of parts of the window allowed after its first listing (default 256) */
  maxRelists?: number;
  /**
   * The whole window's first listing served fewer than the server counts: whether to trust what
   * was served (the caller saw this shortfall before) instead of narrowing it down.
   */
  trustShortfall?(window: TimeWindow, counted: number, served: number, seen: ReadonlyMap<string, number>): Promise<boolean>;
}

/** Listings of a window that splitting cannot help, before it is reported short. */
const UNSPLITTABLE_ATTEMPTS = 3;
/** Enough to narrow a few dozen short spots down to one page each in a million conversations. */
const DEFAULT_MAX_RELISTS = 256;

export class WindowLister {
  /** started_at (ms) of each conversation seen, by id */
  readonly seen = new Map<string, number>();
  /** windows that did not add up after their retries and splits */
  readonly short: ShortWindow[] = [];
  /** the largest total the server gave for the whole window (null before its first page) */
  total: number | null = null;
  /** the whole window, when its shortfall was trusted: what the server counts and what it served */
  trusted: ShortWindow | null = null;
  private relistsLeft: number;

  constructor(private readonly options: WindowListerOptions) {
    this.relistsLeft = options.maxRelists ?? DEFAULT_MAX_RELISTS;
  }

  /** the window's first page, already fetched (with no `to`: the page that pinned the window's end) */
  private firstPage: ListedPage | null = null;

  /**
   * Lists the window; true when every part of it added up (false also when aborted). `firstPage`:
   * its first page, fetched already, holding nothing past the window's end.
   */
  list(window: TimeWindow, firstPage?: ListedPage): Promise<boolean> {
    this.firstPage = firstPage ?? null;
    return this.verify(window, true);
  }

  private async verify(window: TimeWindow, whole: boolean): Promise<boolean> {
    let counted = 0;
    for (let attempt = 1; ; attempt++) {
      const pass = await this.listOnce(window, whole);
      counted = Math.max(counted, pass.counted);
      if (this.options.aborted()) return false;
      const served = this.countSeen(window);
      if (served >= counted) return true;
      if (whole && attempt === 1 && (await this.options.trustShortfall?.(window, counted, served, this.seen))) {
        this.trusted = { ...window, counted, served };
        return true;
      }

      // A window the server answered in one page has no page boundary to lose anything at:
      // splitting it cannot help, listing it again may.
      const onePage = pass.pagesWithData <= 1;
      const parts = onePage ? null : splitShortWindow(window, [...this.seen.values()]);
      const cost = parts?.length ?? 1;
      if ((!parts && attempt >= UNSPLITTABLE_ATTEMPTS) || this.relistsLeft < cost) {
        this.short.push({ ...window, counted, served });
        return false;
      }
      this.relistsLeft -= cost;
      if (parts) {
        let complete = true;
        for (const part of parts) complete = (await this.verify(part, false)) && complete;
        return complete;
      }
    }
  }

  /** One pass over the window's pages: the largest total the server gave, and how many pages held anything. */
  private async listOnce(window: TimeWindow, whole: boolean): Promise<{ counted: number; pagesWithData: number }> {
    let counted = 0;
    // per page fetched: how many it held and its next_page (not its data: 100,000 summaries at once)
    const fetched = new Map<number, PageSeen>();
    const fetch = async (page: number): Promise<ListedPage> => {
      const prefetched = whole && page === 1 ? this.firstPage : null;
      this.firstPage = null;
      const response = prefetched ?? (await this.options.fetchPage(window, page));
      fetched.set(page, { items: response.data.length, nextPage: response.meta.next_page });
      for (const c of response.data) this.seen.set(c.id, Date.parse(c.started_at));
      counted = Math.max(counted, response.meta.total);
      if (whole) this.total = Math.max(this.total ?? 0, counted);
      this.options.onPage?.();
      return response;
    };
    const done = () => this.countSeen(window) >= counted;

    const first = await fetch(1);
    // The page count comes from what the server serves, not from what was asked.
    const pages = pageCount(first.meta.total, servedPageSize(first.meta, first.data.length));
    const limit = pLimit(this.options.concurrency);
    await Promise.all(
      Array.from({ length: pages - 1 }, (_, i) =>
        limit(async () => {
          if (this.options.aborted() || done()) return;
          await fetch(i + 2);
        }),
      ),
    );

    // Past the computed pages (a total that grew, a served size smaller than it seemed), follow
    // next_page from the last page that held anything, never to a page already fetched.
    let next = nextPageAfter(fetched);
    for (let followed = 0; next !== null && next >= 1 && !fetched.has(next) && followed <= pages; followed++) {
      if (this.options.aborted() || done()) break;
      const response = await fetch(next);
      next = response.data.length > 0 ? response.meta.next_page : null;
    }
    const pagesWithData = [...fetched.values()].filter((p) => p.items > 0).length;
    return { counted, pagesWithData };
  }

  /**
   * What the server counts for the whole window beyond what it served there once the listing
   * ended (0: it added up), or null before its first page.
   */
  excess(window: TimeWindow): number | null {
    if (this.total === null) return null;
    return Math.max(0, this.total - this.countSeen(window));
  }

  private countSeen(window: TimeWindow): number {
    return countInWindow(this.seen.values(), window.fromMs ?? -Infinity, window.toMs);
  }
}

export interface ListingGapSummary {
  /** null: from the beginning of history */
  from: string | null;
  to: string;
  /** what the server counts there */
  counted: number;
  /** distinct conversations it served there */
  served: number;
  /** `listing A..B is short: …`, as recorded in sync_errors and sync_runs.message */
  message: string;
  /** whether the next run lists the window again by itself (false for a bounded backfill) */
  nextRunRelists: boolean;
}

/** The span of the windows that did not add up, as a run's summary carries it (null: none). */
export function summariseShortWindows(short: readonly ShortWindow[], nextRunRelists: boolean): ListingGapSummary | null {
  const span = combineShortWindows(short);
  if (!span) return null;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    from: span.fromMs === null ? null : iso(span.fromMs),
    to: iso(span.toMs),
    counted: span.counted,
    served: span.served,
    // Counts of several windows are theirs, not the whole span's: say so.
    message: describeShortWindow(span) + (short.length > 1 ? ` (over ${short.length} short windows in that span)` : ''),
    nextRunRelists,
  };
}

interface PageSeen {
  items: number;
  nextPage: number | null;
}

/** meta.next_page of the highest-numbered page that held conversations. */
function nextPageAfter(fetched: ReadonlyMap<number, PageSeen>): number | null {
  let last: PageSeen | null = null;
  let lastPage = 0;
  for (const [page, seen] of fetched) {
    if (seen.items > 0 && page > lastPage) {
      last = seen;
      lastPage = page;
    }
  }
  return last?.nextPage ?? null;
}
