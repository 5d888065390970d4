// The recording host: the audio behind each detail's recording_url, served on the simulator's
// loopback server under /recordings/ (not the API: no key, no rate limit, like a storage bucket).
// Each link is signed (X-Amz-Date + X-Amz-Expires + X-Amz-Signature) and answers 403 once past
// its expiry or with a wrong signature. The audio is a short WAV built by hand from the
// conversation id (same id, same bytes). Some recordings are slow, some are cut mid-body the
// first time they are asked for, some are missing (404): each drawn from the id, so the truth
// (recordingTruth) says which conversation has which bytes.

import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';
import type { Dataset } from '../dataset/dataset.js';
import { hashSeed } from '../random.js';
import type { RequestLogEntry, RequestRecorder } from './request-log.js';

export const RECORDING_PATH = '/recordings/';
export const RECORDING_TYPE = 'audio/wav';

export interface RecordingOptions {
  /** share of recordings sent slowly (slowBytesPerSecond); default 0 */
  slow: number;
  /** share of recordings whose first download is cut mid-body (full Content-Length, half the bytes); default 0 */
  truncated: number;
  /** share of recordings the host does not have (404); default 0 */
  missing: number;
  /** pace of a slow recording; default 16000 */
  slowBytesPerSecond: number;
  /** seconds of audio added to every recording (8,000 bytes each: files of megabytes); default 0 */
  extraSeconds: number;
}

export function recordingOptions(given: Partial<RecordingOptions> | undefined): RecordingOptions {
  return { slow: 0, truncated: 0, missing: 0, slowBytesPerSecond: 16_000, extraSeconds: 0, ...given };
}

export type RecordingKind = 'ok' | 'slow' | 'truncated' | 'missing';

export interface RecordingTruth {
  kind: RecordingKind;
  /** null when missing */
  sha256: string | null;
  bytes: number;
  contentType: string;
  durationSeconds: number;
}

const SAMPLE_RATE = 8000;

/** A mono 8-bit PCM WAV of 1–3 s (plus `extraSeconds`), a tone whose pitch and length follow the id. */
export function recordingBytes(id: string, extraSeconds = 0): Buffer {
  const h = hashSeed(0x7265, id.length) ^ [...id].reduce((a, c) => (Math.imul(a, 31) + c.charCodeAt(0)) >>> 0, 7);
  const seconds = 1 + ((h >>> 3) % 3) + extraSeconds;
  const pitch = 200 + ((h >>> 7) % 600);
  const n = SAMPLE_RATE * seconds;
  const buf = Buffer.alloc(44 + n);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + n, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(SAMPLE_RATE, 24);
  buf.writeUInt32LE(SAMPLE_RATE, 28); // byte rate: 1 byte per sample
  buf.writeUInt16LE(1, 32); // block align
  buf.writeUInt16LE(8, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(n, 40);
  for (let i = 0; i < n; i++) buf[44 + i] = 128 + Math.round(60 * Math.sin((2 * Math.PI * pitch * i) / SAMPLE_RATE));
  return buf;
}

/** The link of `id`'s recording on the server at `origin`, signed at `t` (ms) for `expiresSec`. */
export function recordingLink(origin: string, id: string, secret: string, t: number, expiresSec: number): string {
  return signRecordingUrl(`${origin}${RECORDING_PATH}${id}.wav`, id, secret, t, expiresSec);
}

function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
}

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

function signature(secret: string, id: string, date: string, expires: string): string {
  return createHmac('sha256', secret).update(`${id}:${date}:${expires}`).digest('hex');
}

/** `url` with a presigned-style query, signed at `t` (ms) and living `expiresSec`; it changes every second. */
export function signRecordingUrl(url: string, conversationId: string, secret: string, t: number, expiresSec = 300): string {
  const date = amzDate(t);
  const expires = String(Math.max(0, Math.round(expiresSec)));
  const sig = signature(secret, conversationId, date, expires);
  return `${url}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${date}&X-Amz-Expires=${expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=${sig}`;
}

export class RecordingHost {
  /** ids whose truncated first download was already sent */
  private readonly cut = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly options: RecordingOptions;

  constructor(
    private readonly dataset: Dataset,
    private readonly secret: () => string,
    private readonly recorder: RequestRecorder,
    given: Partial<RecordingOptions> | undefined,
  ) {
    this.options = recordingOptions(given);
  }


  kindOf(id: string): RecordingKind {
    const o = this.options;
    const draw = (hashSeed(hashSeed(0x5245, id.charCodeAt(0)), [...id].reduce((a, c) => (Math.imul(a, 33) ^ c.charCodeAt(0)) >>> 0, 5381)) >>> 0) / 2 ** 32;
    if (draw < o.missing) return 'missing';
    if (draw < o.missing + o.truncated) return 'truncated';
    if (draw < o.missing + o.truncated + o.slow) return 'slow';
    return 'ok';
  }

  /** The conversations with a recording_url and what the host holds for each (the dataset as generated). */
  truth(confidential: boolean): Map<string, RecordingTruth> {
    const out = new Map<string, RecordingTruth>();
    if (confidential) return out;
    for (const rec of this.dataset.records) {
      if (!this.dataset.detail(rec.id)?.recording_url) continue;
      const kind = this.kindOf(rec.id);
      const bytes = recordingBytes(rec.id, this.options.extraSeconds);
      out.set(rec.id, {
        kind,
        sha256: kind === 'missing' ? null : createHash('sha256').update(bytes).digest('hex'),
        bytes: kind === 'missing' ? 0 : bytes.length,
        contentType: RECORDING_TYPE,
        durationSeconds: (bytes.length - 44) / SAMPLE_RATE,
      });
    }
    return out;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  readonly handle = (req: http.IncomingMessage, res: http.ServerResponse, url: URL): void => {
    req.resume();
    const entry: RequestLogEntry = {
      t: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      client: 'key',
      kind: 'recording',
    };
    this.recorder.add(entry);
    const answer = (status: number, text: string): void => {
      this.recorder.done(entry, status);
      res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
    };
    const m = /^\/recordings\/([0-9a-f-]{36})\.wav$/.exec(url.pathname);
    const id = m?.[1];
    if (!id || !this.dataset.record(id)) return answer(404, '<Error><Code>NoSuchKey</Code></Error>');
    const q = url.searchParams;
    const date = q.get('X-Amz-Date') ?? '';
    const expires = q.get('X-Amz-Expires') ?? '';
    if (q.get('X-Amz-Signature') !== signature(this.secret(), id, date, expires)) {
      return answer(403, '<Error><Code>SignatureDoesNotMatch</Code></Error>');
    }
    if (!(Date.now() < parseAmzDate(date) + Number(expires) * 1000)) {
      return answer(403, '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    }
    const kind = this.kindOf(id);
    if (kind === 'missing') return answer(404, '<Error><Code>NoSuchKey</Code></Error>');
    const body = recordingBytes(id, this.options.extraSeconds);
    this.recorder.done(entry, 200);
    res.writeHead(200, { 'Content-Type': RECORDING_TYPE, 'Content-Length': String(body.length) });
    if (req.method === 'HEAD') return void res.end();
    if (kind === 'truncated' && !this.cut.has(id)) {
      this.cut.add(id);
      entry.fault = 'truncate';
      res.write(body.subarray(0, body.length >> 1), () => res.destroy());
      return;
    }
    if (kind !== 'slow') return void res.end(body);
    // Slow: a tenth of a second's worth at a time.
    const step = Math.max(1, Math.floor(this.options.slowBytesPerSecond / 10));
    let at = 0;
    const next = (): void => {
      if (res.destroyed) return;
      const chunk = body.subarray(at, at + step);
      at += chunk.length;
      if (at >= body.length) return void res.end(chunk);
      res.write(chunk);
      const t = setTimeout(() => {
        this.timers.delete(t);
        next();
      }, 100);
      this.timers.add(t);
    };
    next();
  };
}
