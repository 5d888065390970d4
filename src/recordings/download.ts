// One recording's download: a plain GET of its signed link (no key: the recording host is not the
// API, so no rate limiter), following a few redirects (to another host with none of our headers),
// streamed into a temporary name beside its final path, hashed as it arrives, and renamed only
// once complete (its size matches the Content-Length when there is one; a chunked body must end
// properly). A cut body, a refused link, a file over the size limit, a full or failing disk are
// outcomes, never exceptions nor unhandled stream errors.

import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { realDisk, type RecordingDisk } from './disk.js';
import { extensionOf, wavDurationSeconds } from './link.js';

export type DownloadOutcome =
  | { state: 'stored'; path: string; bytes: number; sha256: string; contentType: string | null; durationSeconds: number | null }
  | { state: 'refused'; status: number; reason: string }
  | { state: 'truncated' | 'too_large' | 'no_space' | 'failed'; reason: string; /** trying again this run would get the same */ final?: true };

/** Bytes per second shared by every download of a run (null: unlimited). */
export class Bandwidth {
  private nextFreeMs = 0;
  constructor(private readonly bytesPerSecond: number | null) {}

  /** Waits until `bytes` more fit in the budget. */
  async take(bytes: number): Promise<void> {
    if (this.bytesPerSecond === null) return;
    const now = Date.now();
    this.nextFreeMs = Math.max(this.nextFreeMs, now) + (bytes * 1000) / this.bytesPerSecond;
    const wait = this.nextFreeMs - now - 1000; // a second's worth may run ahead
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

export interface DownloadTarget {
  /** the final path without its extension (the content type gives it) */
  stem: string;
  maxBytes: number;
  dispatcher: Dispatcher;
  bandwidth: Bandwidth;
  timeoutMs: number;
  signal?: AbortSignal;
  /** every answer's Date header, with the origin that sent it and when it came (the host's clock) */
  onServerDate?: (origin: string, dateMs: number, receivedAtMs: number) => void;
  /** where the bytes go (default: the real disk) */
  disk?: RecordingDisk;
}

/** The temporary name a download is written to before it is complete. */
export function partialPath(stem: string): string {
  return `${stem}.part`;
}

/**
 * Removes the temporary files under `dir` last written before `beforeMs`: downloads a killed run
 * left, which no later run may finish (their conversation is past the retry window, or erased).
 */
export async function removeLeftParts(dir: string, beforeMs: number): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return 0; // no folder yet: nothing was ever downloaded
  }
  let removed = 0;
  for (const e of entries) {
    if (!e.isFile() || !e.name.endsWith('.part')) continue;
    const file = path.join(e.parentPath, e.name);
    const written = await stat(file).then((s) => s.mtimeMs, () => null);
    if (written === null || written >= beforeMs) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}

/** Redirects followed from a recording link to its bytes (a host may send a link to its storage). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What we send to the link's own host; a host a redirect leads elsewhere gets none of it. */
const OUR_HEADERS = { 'user-agent': 'convoduck/0.1' };

export async function downloadRecording(link: string, t: DownloadTarget): Promise<DownloadOutcome> {
  // every failure is an outcome: whatever a disk or a host throws ends here, never in the crawl
  return attempt(link, t).catch((err: unknown) => ({ state: 'failed' as const, reason: messageOf(err) }));
}

async function attempt(link: string, t: DownloadTarget): Promise<DownloadOutcome> {
  const answered = await follow(link, t);
  if ('state' in answered) return answered;
  const { res } = answered;
  try {
    return await store(res, t);
  } catch (err) {
    // a throw before the body was taken (the disk's free space, say): the body is let go all the same
    await discard(res.body);
    throw err;
  }
}

/** The answer that is not a redirect: refused, or its body into the file. */
async function store(res: Dispatcher.ResponseData, t: DownloadTarget): Promise<DownloadOutcome> {
  if (res.statusCode !== 200) {
    await discard(res.body);
    return { state: 'refused', status: res.statusCode, reason: `the recording host answered ${res.statusCode}` };
  }
  const contentType = headerOf(res, 'content-type');
  const lengthText = headerOf(res, 'content-length');
  const expected = lengthText !== null && /^\d+$/.test(lengthText) ? Number(lengthText) : null;
  if (expected !== null && expected > t.maxBytes) {
    await discard(res.body);
    return { state: 'too_large', reason: `${expected} bytes, over the limit of ${t.maxBytes}` };
  }
  const disk = t.disk ?? realDisk;
  const folder = path.dirname(t.stem);
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    await discard(res.body);
    return { state: (err as NodeJS.ErrnoException).code === 'ENOSPC' ? 'no_space' : 'failed', reason: `cannot create ${folder}: ${messageOf(err)}` };
  }
  const free = await disk.freeBytes(folder);
  if (free !== null && expected !== null && free < expected * 2) {
    await discard(res.body);
    return { state: 'no_space', reason: `${expected} bytes, and only ${free} free on the disk` };
  }
  const temp = partialPath(t.stem);
  const copied = await copy(res.body, disk.open(temp), t);
  const of = expected === null ? '' : ` of ${expected}`;
  if (copied.failed !== null || (expected !== null && copied.bytes !== expected)) {
    await rm(temp, { force: true }).catch(() => undefined);
    const f = copied.failed;
    if (f === null) return { state: 'truncated', reason: `cut after ${copied.bytes}${of} bytes` };
    if (f.error instanceof LimitError) return { state: 'too_large', reason: f.error.message };
    if (f.by === 'file' && (f.error as NodeJS.ErrnoException | null)?.code === 'ENOSPC') return { state: 'no_space', reason: `the disk filled up while writing its ${expected ?? `first ${copied.bytes}`} bytes` };
    if (f.by === 'file') return { state: 'failed', reason: `cannot write ${temp}: ${f.error === null ? 'the file closed before the end' : messageOf(f.error)}` };
    if (f.by === 'body') return { state: 'truncated', reason: `cut after ${copied.bytes}${of} bytes: ${messageOf(f.error)}` };
    return { state: 'failed', reason: messageOf(f.error) };
  }
  const final = `${t.stem}.${extensionOf(contentType)}`;
  try {
    await rename(temp, final);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    return { state: 'failed', reason: `cannot rename ${temp}: ${messageOf(err)}` };
  }
  return { state: 'stored', path: final, bytes: copied.bytes, sha256: copied.sha256, contentType, durationSeconds: wavDurationSeconds(copied.head, copied.bytes) };
}

/**
 * The response that is not a redirect, after at most MAX_REDIRECTS of them. Our headers go to
 * the link's own origin only: once a redirect leads to another, nothing of ours is sent again.
 */
async function follow(link: string, t: DownloadTarget): Promise<{ res: Dispatcher.ResponseData } | DownloadOutcome> {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return { state: 'failed', reason: 'the recording link is not a URL', final: true };
  }
  const home = url.origin;
  let away = false;
  for (let hop = 0; ; hop++) {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        dispatcher: t.dispatcher,
        headersTimeout: t.timeoutMs,
        bodyTimeout: t.timeoutMs,
        signal: t.signal,
        headers: away ? {} : OUR_HEADERS,
      });
    } catch (err) {
      return { state: 'failed', reason: `no answer from ${url.host}: ${messageOf(err)}` };
    }
    // an error of the body from now on (a reset, an abort) is ours to see: never an unhandled event
    res.body.on('error', () => undefined);
    const date = headerOf(res, 'date');
    const dateMs = date === null ? NaN : Date.parse(date);
    if (!Number.isNaN(dateMs)) t.onServerDate?.(url.origin, dateMs, Date.now());
    if (!REDIRECT_STATUSES.has(res.statusCode)) return { res };
    await discard(res.body);
    const location = headerOf(res, 'location');
    if (location === null) return { state: 'failed', reason: `${url.host} answered ${res.statusCode} with no Location to follow`, final: true };
    if (hop >= MAX_REDIRECTS) return { state: 'failed', reason: `more than ${MAX_REDIRECTS} redirects (the last from ${url.host})`, final: true };
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return { state: 'failed', reason: `${url.host} redirected to ${JSON.stringify(location)}, which is not a URL`, final: true };
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') return { state: 'failed', reason: `${url.host} redirected to a ${next.protocol} link`, final: true };
    url = next;
    if (url.origin !== home) away = true;
  }
}

interface Copied {
  bytes: number;
  sha256: string;
  /** the first 44 bytes (a WAV header) */
  head: Buffer;
  /** what ended the copy early: the body (cut, reset, aborted), the file, or our own step; null: complete */
  failed: { by: 'body' | 'file' | 'ours'; error: unknown } | null;
}

/**
 * The body into the file, hashed, counted and paced as it arrives. stream.pipeline owns both
 * streams' errors; the side that fails first is noted (before the pipeline fails the other with
 * the same error), so that its own error names the outcome.
 */
async function copy(body: Readable, file: Writable, t: DownloadTarget): Promise<Copied> {
  const hash = createHash('sha256');
  let bytes = 0;
  let head = Buffer.alloc(0);
  let failed: Copied['failed'] = null;
  const fileFailed = (error: unknown): void => void (failed ??= { by: 'file', error });
  body.on('error', (error) => (failed ??= { by: 'body', error }));
  // the file behind a guard that sees its every failure first: an error, a throw, a close before the end
  const guard = new Writable({
    write(chunk: Buffer, _encoding, done) {
      try {
        file.write(chunk, (err) => {
          if (err) fileFailed(err);
          done(err);
        });
      } catch (err) {
        fileFailed(err);
        done(err as Error);
      }
    },
    final(done) {
      file.end(() => done(file.errored ?? null));
    },
    destroy(err, done) {
      file.destroy();
      done(err);
    },
  });
  file.on('error', (err) => {
    fileFailed(err);
    guard.destroy(err);
  });
  file.on('close', () => {
    if (file.writableFinished) return;
    fileFailed(null);
    guard.destroy(new Error('the file closed before the end'));
  });
  const step = async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      try {
        bytes += chunk.length;
        if (bytes > t.maxBytes) throw new LimitError(`over ${t.maxBytes} bytes`);
        if (head.length < 44) head = Buffer.concat([head, chunk.subarray(0, 44 - head.length)]);
        hash.update(chunk);
        await t.bandwidth.take(chunk.length);
      } catch (error) {
        failed ??= { by: 'ours', error };
        throw error;
      }
      yield chunk;
    }
  };
  try {
    await pipeline(body, step, guard);
  } catch (error) {
    failed ??= { by: 'ours', error };
  }
  return { bytes, sha256: hash.digest('hex'), head, failed };
}

/** Reads and drops what is left of a body (or ends it when large): its errors are swallowed. */
async function discard(body: Readable & { dump?: () => Promise<unknown> }): Promise<void> {
  body.on('error', () => undefined);
  if (typeof body.dump === 'function') await body.dump().catch(() => undefined);
  else body.destroy();
}

function headerOf(res: Dispatcher.ResponseData, name: string): string | null {
  const v = res.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}

class LimitError extends Error {}
