// The crawl's side of `sync --recordings`: the recording link of each detail fetched, kept until
// the detail is written, then handed to the space's recordings (which download it beside the
// crawl); at the run's end, their finish. Started only once a detail has a link, or at the end.

import type { FetchedDetail } from '../store/writes.js';
import type { RecordingHook } from './sync-types.js';

export class RecordingLinks {
  private hook: RecordingHook | null = null;
  private readonly links = new Map<string, { link: string; startedAt: string | null }>();

  constructor(private readonly start: () => RecordingHook) {}

  /** A detail was fetched: its link (if any) waits for the detail to be written. */
  note(id: string, json: unknown): void {
    const data = (json as { data?: { recording_url?: unknown; started_at?: unknown } } | null)?.data;
    if (typeof data?.recording_url !== 'string') return;
    this.links.set(id, { link: data.recording_url, startedAt: typeof data.started_at === 'string' ? data.started_at : null });
  }

  /** These details are written: their recordings are downloaded (one set aside too: its link is good). */
  written(details: readonly FetchedDetail[]): void {
    for (const d of details) {
      const noted = this.links.get(d.id);
      if (!noted) continue;
      this.links.delete(d.id);
      (this.hook ??= this.start()).stored(d.id, noted.link, noted.startedAt);
    }
  }

  /** How far the downloads are (null: none queued yet). */
  progress(): ReturnType<RecordingHook['progress']> | null {
    return this.hook?.progress() ?? null;
  }

  /** After the details: waits for the downloads; unless stopped, also fetches what is still owed. */
  async finish(stopped: boolean): Promise<void> {
    this.links.clear();
    if (stopped && this.hook === null) return;
    await (this.hook ??= this.start()).finish();
  }
}
