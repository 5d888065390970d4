// A sync's recordings for one space: each detail the crawl stores with a recording link is queued
// at once and downloaded beside the crawl (bounded in parallel and in bandwidth, outside the API
// key's budget); then what earlier runs still owe (missing, cut, killed mid-download), or with
// `full` every stored conversation's, is fetched with a fresh link. A link refused or past its
// expiry costs one fresh Get conversation, through the API client and so within the key's budget.
// A link's expiry is judged on its host's clock (the Date of its answers), never on ours: until
// the host has answered once, a link is tried as it is.

import path from 'node:path';
import pLimit from 'p-limit';
import { Agent } from 'undici';
import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import type { Database } from '../store/database.js';
import { owedRecordings, saveRecording, type RecordingState } from '../store/recordings.js';
import type { RecordingDisk } from './disk.js';
import { Bandwidth, downloadRecording, removeLeftParts, type DownloadOutcome } from './download.js';
import { linkExpired } from './link.js';

export interface RecordingSettings {
  /** the folder: DIR/space/YYYY-MM-DD/conversation-id.EXT */
  dir: string;
  /** every stored conversation's recording still owed, not only recent ones (backfill) */
  full?: boolean;
  /** downloads at once (default 4) */
  concurrency?: number;
  /** a recording over this many bytes is not stored (default 200 MB) */
  maxBytes?: number;
  /** all downloads together (default unlimited) */
  bytesPerSecond?: number | null;
  /** a cap shared with other spaces' downloads (the run's); else one of bytesPerSecond for this space */
  bandwidth?: Bandwidth;
  /** conversations started this recently are tried again on later runs (default 7 days) */
  recentDays?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** where the files are written (default: the real disk; tests give a failing one) */
  disk?: RecordingDisk;
  /** a line for the user about a recording not stored (over the limit, a full disk) */
  onLine?: (line: string) => void;
  /** a line of progress: what is owed before it is fetched, and the counts at the end */
  onNote?: (line: string) => void;
}

export interface RecordingCounters {
  stored: number;
  missing: number;
  expired: number;
  failed: number;
  /** of the failed: not stored for want of room on the disk */
  noSpace: number;
  bytes: number;
  /** fresh links asked of the API */
  renewed: number;
}

/** How far the recordings of a run are: while the crawl goes on, and while what is owed is fetched. */
export interface RecordingProgress {
  /** downloads finished (stored or not) */
  done: number;
  /** downloads queued so far, and what earlier runs owe once that is known */
  total: number;
  bytes: number;
  /** fresh links still to ask for (each one Get conversation); null until what is owed is known */
  linksLeft: number | null;
}

/** The file's writer, as the crawl shares it. */
export interface RecordingWriter {
  write<T>(work: (db: Database) => Promise<T>): Promise<T>;
}

const ATTEMPTS = 3;
const DAY_MS = 86_400_000;
/** a .part untouched this long is no download under way (one stalls out after timeoutMs), even another process's */
const LEFT_PART_AGE_MS = 10 * 60_000;

export class RecordingSession {
  readonly counters: RecordingCounters = { stored: 0, missing: 0, expired: 0, failed: 0, noSpace: 0, bytes: 0, renewed: 0 };
  private readonly limit;
  private readonly dispatcher: Agent;
  private readonly bandwidth: Bandwidth;
  private readonly queued = new Set<string>();
  /** what earlier runs owe, once read at finish; linksLeft: those of it not yet begun */
  private owed = 0;
  private linksLeft: number | null = null;
  private done = 0;
  private readonly running: Promise<void>[] = [];
  /** a write of the table that failed: the run fails with it at finish (a download never rejects before then) */
  private failure: unknown = null;
  /** each recording host's clock, as its Date headers give it: its time minus ours (ms), by origin */
  private readonly hostClocks = new Map<string, number>();
  /** the states of which one line was said (a full disk says it once, not per recording) */
  private readonly told = new Set<RecordingState>();

  constructor(
    private readonly settings: RecordingSettings,
    private readonly space: string,
    private readonly client: ApiClient,
    private readonly writer: RecordingWriter,
    private readonly now: () => Date = () => new Date(),
  ) {
    const concurrency = settings.concurrency ?? 4;
    this.limit = pLimit(concurrency);
    this.dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 5_000 });
    this.bandwidth = settings.bandwidth ?? new Bandwidth(settings.bytesPerSecond ?? null);
  }

  progress(): RecordingProgress {
    return { done: this.done, total: this.queued.size + this.owed, bytes: this.counters.bytes, linksLeft: this.linksLeft };
  }

  /** A detail was stored with this link: its recording is downloaded beside the crawl. */
  stored(id: string, link: string, startedAt: string | null): void {
    if (this.queued.has(id) || this.settings.signal?.aborted) return;
    this.queued.add(id);
    this.running.push(this.limit(() => this.fetch(id, link, startedAt)).catch((err: unknown) => void (this.failure ??= err)));
  }

  /** Waits for the queued downloads, then fetches what is still owed with fresh links. */
  async finish(): Promise<RecordingCounters> {
    try {
      await Promise.all(this.running);
      if (!this.settings.signal?.aborted) {
        const recentDays = this.settings.recentDays ?? 7;
        const since = this.settings.full ? null : new Date(this.now().getTime() - recentDays * DAY_MS);
        const owed = await this.writer.write((db) => owedRecordings(db, this.space, since));
        const later = owed.filter((o) => !this.queued.has(o.id));
        this.owed = later.length;
        this.linksLeft = later.length;
        if (later.length > 0) {
          this.say('onNote', `recordings of ${this.space}: ${later.length} owed by earlier runs, newest first: one Get conversation each for a fresh link, within the key's budget`);
        }
        await Promise.all(
          later.map((o) =>
            this.limit(() => {
              this.linksLeft!--;
              return this.fetch(o.id, null, o.startedAt);
            }),
          ),
        );
        if (this.failure === null && !this.settings.signal?.aborted) await removeLeftParts(path.join(this.settings.dir, safeName(this.space)), Date.now() - LEFT_PART_AGE_MS);
      }
      if (this.failure !== null) throw this.failure;
      const c = this.counters;
      if (c.stored + c.missing + c.expired + c.failed > 0) {
        const noSpace = c.noSpace > 0 ? ` (${c.noSpace} for want of room on the disk of ${this.settings.dir})` : '';
        this.say('onNote', `recordings of ${this.space}: ${c.stored} stored (${(c.bytes / 1e6).toFixed(1)} MB), ${c.missing} missing, ${c.expired} expired, ${c.failed} not stored${noSpace}; ${c.renewed} fresh links asked`);
      }
      return this.counters;
    } finally {
      await this.dispatcher.close();
    }
  }

  /** A line for the user: a failing listener of ours never stops a download nor the crawl. */
  private say(to: 'onLine' | 'onNote', line: string): void {
    try {
      this.settings[to]?.(line);
    } catch {
      // the line is lost; the row and the counts keep what it said
    }
  }

  /** The link is past its expiry on its host's clock; not judged before that host has answered once. */
  private expiredOnItsHost(link: string): boolean {
    let origin: string;
    try {
      origin = new URL(link).origin;
    } catch {
      return false;
    }
    const offset = this.hostClocks.get(origin);
    // a Date header is whole seconds, so the host's time is up to a second later than it says: linkExpired's margin covers it
    return offset !== undefined && linkExpired(link, Date.now() + offset);
  }

  /** A fresh link from a new Get conversation (null: the conversation has none, or is gone). */
  private async renew(id: string): Promise<string | null> {
    this.counters.renewed++;
    try {
      const { json } = await this.client.getConversation(this.space, id);
      const link = (json as { data?: { recording_url?: unknown } } | null)?.data?.recording_url;
      return typeof link === 'string' ? link : null;
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  private stem(id: string, startedAt: string | null): string {
    const t = startedAt ? new Date(startedAt) : null;
    const day = t && !Number.isNaN(t.getTime()) ? t.toISOString().slice(0, 10) : 'undated';
    return path.join(this.settings.dir, safeName(this.space), day, safeName(id));
  }

  private async fetch(id: string, given: string | null, startedAt: string | null): Promise<void> {
    try {
      await this.fetchOnce(id, given, startedAt);
    } finally {
      this.done++;
    }
  }

  private async fetchOnce(id: string, given: string | null, startedAt: string | null): Promise<void> {
    if (this.settings.signal?.aborted) return;
    let attempts = 0;
    let outcome: DownloadOutcome | { state: 'gone'; reason: string } = { state: 'gone', reason: 'no recording link' };
    try {
      let renewed = false;
      let link = given;
      if (link === null || this.expiredOnItsHost(link)) {
        link = await this.renew(id);
        renewed = true;
      }
      while (link !== null && attempts < ATTEMPTS && !this.settings.signal?.aborted) {
        attempts++;
        outcome = await downloadRecording(link, {
          stem: this.stem(id, startedAt),
          maxBytes: this.settings.maxBytes ?? 200_000_000,
          dispatcher: this.dispatcher,
          bandwidth: this.bandwidth,
          timeoutMs: this.settings.timeoutMs ?? 60_000,
          signal: this.settings.signal,
          disk: this.settings.disk,
          onServerDate: (origin, dateMs, receivedAtMs) => this.hostClocks.set(origin, dateMs - receivedAtMs),
        });
        if (outcome.state === 'stored' || outcome.state === 'too_large' || outcome.state === 'no_space' || ('final' in outcome && outcome.final)) break;
        // refused (expired, or gone from the host): one fresh link, and no more
        if (outcome.state === 'refused') {
          if (renewed) break;
          link = await this.renew(id);
          renewed = true;
        }
      }
      if (link === null && outcome.state === 'gone') outcome = { state: 'gone', reason: 'the conversation has no recording link now' };
    } catch (err) {
      // the renewal's request failed (the crawl records the API's errors): tried again next run
      outcome = { state: 'failed', reason: err instanceof Error ? err.message : String(err) };
    }
    if (this.settings.signal?.aborted && outcome.state !== 'stored') return;
    await this.record(id, attempts, outcome);
  }

  private async record(id: string, attempts: number, outcome: DownloadOutcome | { state: 'gone'; reason: string }): Promise<void> {
    const at = this.now();
    const base = { conversationId: id, space: this.space, attempts, at };
    if (outcome.state === 'stored') {
      this.counters.stored++;
      this.counters.bytes += outcome.bytes;
      await this.writer.write((db) =>
        saveRecording(db, { ...base, state: 'stored', reason: null, path: outcome.path, bytes: outcome.bytes, sha256: outcome.sha256, contentType: outcome.contentType, durationSeconds: outcome.durationSeconds, downloadedAt: at }),
      );
      return;
    }
    const state = stateOf(outcome);
    if (state === 'missing') this.counters.missing++;
    else if (state === 'expired') this.counters.expired++;
    else this.counters.failed++;
    if (state === 'no_space') this.counters.noSpace++;
    // a full or failing disk (or host) refuses every recording after the first: one line says so, the final count the rest
    if (state === 'too_large') this.say('onLine', `recording of ${id} not stored: ${outcome.reason}`);
    else if ((state === 'no_space' || state === 'failed') && !this.told.has(state)) {
      this.told.add(state);
      this.say('onLine', `recording of ${id} not stored: ${outcome.reason} (more like it are only counted, at the end; each has a row in recordings)`);
    }
    await this.writer.write((db) =>
      saveRecording(db, { ...base, state, reason: outcome.reason, path: null, bytes: null, sha256: null, contentType: null, durationSeconds: null, downloadedAt: null }),
    );
  }
}

function stateOf(outcome: Exclude<DownloadOutcome, { state: 'stored' }> | { state: 'gone'; reason: string }): RecordingState {
  if (outcome.state === 'gone') return 'missing';
  if (outcome.state === 'refused') return outcome.status === 404 ? 'missing' : outcome.status === 403 || outcome.status === 410 ? 'expired' : 'failed';
  return outcome.state;
}

/** A path segment that cannot climb out of the folder or name a device. */
function safeName(s: string): string {
  const name = s.replace(/[^A-Za-z0-9._-]/g, '_');
  return name === '' || /^\.+$/.test(name) ? '_' : name;
}
