// One recording's download: a plain GET of its signed link (no key: the recording host is not the
// API, so no rate limiter), streamed into a temporary name beside its final path, hashed as it
// arrives, and renamed only once its size matches the Content-Length. A cut body, a refused link,
// a file over the size limit or a disk too full are outcomes, never exceptions.

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { request, type Dispatcher } from 'undici';
import { extensionOf, wavDurationSeconds } from './link.js';

export type DownloadOutcome =
  | { state: 'stored'; path: string; bytes: number; sha256: string; contentType: string | null; durationSeconds: number | null }
  | { state: 'refused'; status: number; reason: string }
  | { state: 'truncated' | 'too_large' | 'no_space' | 'failed'; reason: string };

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

/** Room left on the disk holding `dir` (bytes), or null when it cannot be read. */
async function freeBytes(dir: string): Promise<number | null> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

export async function downloadRecording(link: string, t: DownloadTarget): Promise<DownloadOutcome> {
  const temp = partialPath(t.stem);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(link, { dispatcher: t.dispatcher, headersTimeout: t.timeoutMs, bodyTimeout: t.timeoutMs, signal: t.signal });
  } catch (err) {
    return { state: 'failed', reason: `no answer: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => undefined);
    return { state: 'refused', status: res.statusCode, reason: `the recording host answered ${res.statusCode}` };
  }
  const header = (name: string): string | null => {
    const v = res.headers[name];
    return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  };
  const contentType = header('content-type');
  const lengthText = header('content-length');
  const expected = lengthText !== null && /^\d+$/.test(lengthText) ? Number(lengthText) : null;
  if (expected !== null && expected > t.maxBytes) {
    await res.body.destroy();
    return { state: 'too_large', reason: `${expected} bytes, over the limit of ${t.maxBytes}` };
  }
  await mkdir(path.dirname(t.stem), { recursive: true });
  const free = await freeBytes(path.dirname(t.stem));
  if (free !== null && expected !== null && free < expected * 2) {
    await res.body.destroy();
    return { state: 'no_space', reason: `${expected} bytes, and only ${free} free on the disk` };
  }
  const hash = createHash('sha256');
  const out = createWriteStream(temp);
  // an error of the file (open, write) is kept here and ends the copy: never an unhandled event
  const file: { error: Error | null } = { error: null };
  out.on('error', (err) => (file.error ??= err));
  let bytes = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (file.error) throw file.error;
      bytes += chunk.length;
      if (bytes > t.maxBytes) throw new LimitError(`over ${t.maxBytes} bytes`);
      if (head.length < 44) head = Buffer.concat([head, chunk.subarray(0, 44 - head.length)]);
      hash.update(chunk);
      // events.once removes its listeners either way: one per chunk left behind would pile up on a long file
      if (!out.write(chunk)) await once(out, 'drain').catch(() => undefined);
      await t.bandwidth.take(chunk.length);
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (file.error) throw file.error;
  } catch (err) {
    out.destroy();
    res.body.destroy();
    await rm(temp, { force: true });
    if (err instanceof LimitError) return { state: 'too_large', reason: err.message };
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return { state: 'no_space', reason: 'the disk filled up' };
    if (file.error !== null && err === file.error) return { state: 'failed', reason: `cannot write ${temp}: ${file.error.message}` };
    return { state: 'truncated', reason: `cut after ${bytes} of ${expected ?? '?'} bytes` };
  }
  // a body that ended early without an error is cut all the same
  if (expected !== null && bytes !== expected) {
    await rm(temp, { force: true });
    return { state: 'truncated', reason: `cut after ${bytes} of ${expected} bytes` };
  }
  const final = `${t.stem}.${extensionOf(contentType)}`;
  await rename(temp, final);
  return { state: 'stored', path: final, bytes, sha256: hash.digest('hex'), contentType, durationSeconds: wavDurationSeconds(head, bytes) };
}

class LimitError extends Error {}
