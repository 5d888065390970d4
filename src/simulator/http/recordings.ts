// The recording host: the audio behind each detail's recording_url, served on the simulator's
// loopback server under /recordings/ (not the API: no key, no rate limit, like a storage bucket).
// Each link is signed in one of the schemes real hosts use (S3 X-Amz-*, CloudFront Expires +
// Signature, GCS X-Goog-*, or none: a public link), on the server's own clock, and answers 403
// once past its expiry or with a wrong signature. A host may answer a link with redirects, the
// last one to its storage on a second loopback port (as Twilio sends its links to S3), and may
// send the audio chunked, with no Content-Length. The audio is a short WAV built by hand from the
// conversation id (same id, same bytes). Some recordings are slow, some are cut mid-body the
// first time they are asked for, some are cut by a TCP reset every time, some are missing (404):
// each drawn from the id, so the truth (recordingTruth) says which conversation has which bytes.

import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dataset } from '../dataset/dataset.js';
import { hashSeed } from '../random.js';
import type { RuntimeOptions } from '../options.js';
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
  /** share of recordings whose body is cut by a TCP reset (RST) half-way, every time; default 0 */
  reset: number;
  /** how links are signed ('each': the four schemes in turn, drawn from the id); default 'amz' */
  signing: RecordingSigning | 'each';
  /** redirects (302, 301, 307, 308, 303 in turn) the link's host answers before the audio; default 0 */
  redirects: number;
  /** the audio is on a second origin (another loopback port) the last redirect leads to; default false */
  storage: boolean;
  /** share of recordings sent chunked, with no Content-Length (drawn apart from their kind); default 0 */
  chunked: number;
}

export const RECORDING_SIGNINGS = ['amz', 'cloudfront', 'goog', 'none'] as const;
export type RecordingSigning = (typeof RECORDING_SIGNINGS)[number];

export function recordingOptions(given: Partial<RecordingOptions> | undefined): RecordingOptions {
  return { slow: 0, truncated: 0, missing: 0, slowBytesPerSecond: 16_000, extraSeconds: 0, reset: 0, signing: 'amz', redirects: 0, storage: false, chunked: 0, ...given };
}

export type RecordingKind = 'ok' | 'slow' | 'truncated' | 'reset' | 'missing';

export interface RecordingTruth {
  kind: RecordingKind;
  /** null when missing */
  sha256: string | null;
  bytes: number;
  contentType: string;
  durationSeconds: number;
  /** the scheme its links are signed in */
  signing: RecordingSigning;
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

/** The link of `id`'s recording on the server at `origin`, signed at `t` (ms, the server's clock) for `expiresSec`. */
export function recordingLink(origin: string, id: string, secret: string, t: number, expiresSec: number, signing: RecordingSigning = 'amz'): string {
  return signRecordingUrl(`${origin}${RECORDING_PATH}${id}.wav`, id, secret, t, expiresSec, signing);
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

/** `url` signed at `t` (ms) to live `expiresSec`, in the query of `signing`'s scheme; it changes every second. */
export function signRecordingUrl(url: string, conversationId: string, secret: string, t: number, expiresSec = 300, signing: RecordingSigning = 'amz'): string {
  const date = amzDate(t);
  const expires = String(Math.max(0, Math.round(expiresSec)));
  switch (signing) {
    case 'none':
      return url;
    case 'cloudfront': {
      const epoch = String(Math.floor(t / 1000) + Number(expires));
      return `${url}?Expires=${epoch}&Signature=${signature(secret, conversationId, '', epoch)}&Key-Pair-Id=K2SIMULATOR`;
    }
    case 'goog':
      return `${url}?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sim%2F${date.slice(0, 8)}%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=${date}&X-Goog-Expires=${expires}&X-Goog-SignedHeaders=host&X-Goog-Signature=${signature(secret, conversationId, date, expires)}`;
    case 'amz':
      return `${url}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${date}&X-Amz-Expires=${expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=${signature(secret, conversationId, date, expires)}`;
  }
}

/** Why a signed link is refused at `now` (the server's clock), or null when it is good; the scheme is the one its query carries. */
function refusal(q: URLSearchParams, id: string, secret: string, now: number, signing: RecordingSigning): string | null {
  let expiresAt: number;
  if (q.has('X-Amz-Signature') || q.has('X-Goog-Signature')) {
    const v = q.has('X-Amz-Signature') ? 'Amz' : 'Goog';
    const date = q.get(`X-${v}-Date`) ?? '';
    const expires = q.get(`X-${v}-Expires`) ?? '';
    if (q.get(`X-${v}-Signature`) !== signature(secret, id, date, expires)) return '<Error><Code>SignatureDoesNotMatch</Code></Error>';
    expiresAt = parseAmzDate(date) + Number(expires) * 1000;
  } else if (q.has('Signature')) {
    const epoch = q.get('Expires') ?? '';
    if (q.get('Signature') !== signature(secret, id, '', epoch)) return '<Error><Code>SignatureDoesNotMatch</Code></Error>';
    expiresAt = Number(epoch) * 1000;
  } else {
    return signing === 'none' ? null : '<Error><Code>AccessDenied</Code></Error>';
  }
  return now < expiresAt ? null : '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>';
}

const REDIRECT_STATUSES = [302, 301, 307, 308, 303];
/** how long the storage's own link, handed out by a redirect, lives */
const STORAGE_LINK_SECONDS = 60;

export class RecordingHost {
  /** ids whose truncated first download was already sent */
  private readonly cut = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly options: RecordingOptions;

  private constructor(
    private readonly dataset: Dataset,
    private readonly runtime: RuntimeOptions,
    private readonly recorder: RequestRecorder,
    given: Partial<RecordingOptions> | undefined,
    /** the server's clock minus the true time (ms): links are signed and judged on it */
    private readonly clockOffsetMs: number,
    /** the second origin a host's last redirect leads to (null: none) */
    private readonly storage: http.Server | null,
  ) {
    this.options = recordingOptions(given);
  }

  static async start(dataset: Dataset, runtime: RuntimeOptions, recorder: RequestRecorder, given: Partial<RecordingOptions> | undefined, clockOffsetMs: number): Promise<RecordingHost> {
    let storage: http.Server | null = null;
    let self: RecordingHost | null = null;
    if (given?.storage) {
      storage = http.createServer((req, res) => {
        // the storage keeps the same (skewed) clock as the link's host
        if (clockOffsetMs !== 0) res.setHeader('Date', new Date(Date.now() + clockOffsetMs).toUTCString());
        self?.handle(req, res, new URL(req.url ?? '/', 'http://127.0.0.1'), 'storage');
      });
      await new Promise<void>((resolve) => storage!.listen(0, '127.0.0.1', resolve));
    }
    self = new RecordingHost(dataset, runtime, recorder, given, clockOffsetMs, storage);
    return self;
  }

  /** The storage's origin (http://127.0.0.1:PORT), or null when the audio is on the link's own host. */
  get storageOrigin(): string | null {
    const address = this.storage?.address() as AddressInfo | null | undefined;
    return address ? `http://127.0.0.1:${address.port}` : null;
  }

  private now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** A fresh link of `id`'s recording, as the API serves it in a detail. */
  link(id: string): string {
    return recordingLink(this.runtime.recordingOrigin, id, this.runtime.apiKey, this.now(), this.runtime.recordingLinkSeconds, this.signingOf(id));
  }

  /** `id`'s audio is sent chunked: a draw of its own, so that every kind comes both ways. */
  chunked(id: string): boolean {
    return parseInt(id.slice(-8), 16) / 2 ** 32 < this.options.chunked;
  }

  /** The scheme `id`'s links are signed in. */
  signingOf(id: string): RecordingSigning {
    const s = this.options.signing;
    return s === 'each' ? RECORDING_SIGNINGS[parseInt(id.slice(0, 8), 16) % RECORDING_SIGNINGS.length]! : s;
  }

  kindOf(id: string): RecordingKind {
    const o = this.options;
    const draw = (hashSeed(hashSeed(0x5245, id.charCodeAt(0)), [...id].reduce((a, c) => (Math.imul(a, 33) ^ c.charCodeAt(0)) >>> 0, 5381)) >>> 0) / 2 ** 32;
    let at = 0;
    for (const [kind, share] of [['missing', o.missing], ['truncated', o.truncated], ['reset', o.reset], ['slow', o.slow]] as const) {
      at += share;
      if (draw < at) return kind;
    }
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
        signing: this.signingOf(rec.id),
      });
    }
    return out;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.storage) {
      this.storage.close();
      this.storage.closeAllConnections();
    }
  }

  readonly handle = (req: http.IncomingMessage, res: http.ServerResponse, url: URL, host: 'link' | 'storage' = 'link'): void => {
    req.resume();
    const entry: RequestLogEntry = {
      t: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      client: 'key',
      kind: 'recording',
      headers: { ...req.headers },
      host,
    };
    this.recorder.add(entry);
    const answer = (status: number, text: string, headers: Record<string, string> = {}): void => {
      this.recorder.done(entry, status);
      res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const redirect = (hop: number, location: string): void =>
      answer(REDIRECT_STATUSES[hop % REDIRECT_STATUSES.length]!, '', { Location: location });
    if (host === 'storage') {
      // the storage's own signed link, handed out by the last redirect
      const m = /^\/bucket\/([0-9a-f-]{36})\.wav$/.exec(url.pathname);
      const id = m?.[1];
      if (!id || !this.dataset.record(id)) return answer(404, '<Error><Code>NoSuchKey</Code></Error>');
      const refused = refusal(url.searchParams, id, this.storageSecret(), this.now(), 'amz');
      if (refused !== null) return answer(403, refused);
      return this.serve(req, res, id, entry);
    }
    // the link itself, or a hop of the redirects it leads through: /recordings/r/HOPS-LEFT/ID.wav
    const m = /^\/recordings\/(?:r\/(\d+)\/)?([0-9a-f-]{36})\.wav$/.exec(url.pathname);
    const id = m?.[2];
    if (!id || !this.dataset.record(id)) return answer(404, '<Error><Code>NoSuchKey</Code></Error>');
    let left: number;
    if (m![1] === undefined) {
      const refused = refusal(url.searchParams, id, this.runtime.apiKey, this.now(), this.signingOf(id));
      if (refused !== null) return answer(403, refused);
      left = this.options.redirects;
    } else {
      left = Number(m![1]);
    }
    const hop = this.options.redirects - left;
    // same-origin hops give a relative Location, as a host's own API does
    if (left > 0) return redirect(hop, `${RECORDING_PATH}r/${left - 1}/${id}.wav`);
    const storage = this.storageOrigin;
    if (storage !== null) {
      return redirect(hop, signRecordingUrl(`${storage}/bucket/${id}.wav`, id, this.storageSecret(), this.now(), STORAGE_LINK_SECONDS, 'amz'));
    }
    this.serve(req, res, id, entry);
  };

  private storageSecret(): string {
    return `storage-${this.runtime.apiKey}`;
  }

  /** The audio of `id`, as its kind has it: whole, slow, cut once, reset every time, or missing. */
  private serve(req: http.IncomingMessage, res: http.ServerResponse, id: string, entry: RequestLogEntry): void {
    const kind = this.kindOf(id);
    if (kind === 'missing') {
      this.recorder.done(entry, 404);
      const text = '<Error><Code>NoSuchKey</Code></Error>';
      res.writeHead(404, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(text)) });
      return void res.end(text);
    }
    const body = recordingBytes(id, this.options.extraSeconds);
    this.recorder.done(entry, 200);
    const chunked = this.chunked(id);
    res.writeHead(200, chunked ? { 'Content-Type': RECORDING_TYPE } : { 'Content-Type': RECORDING_TYPE, 'Content-Length': String(body.length) });
    if (req.method === 'HEAD') return void res.end();
    if (kind === 'truncated' && !this.cut.has(id)) {
      this.cut.add(id);
      entry.fault = 'truncate';
      res.write(body.subarray(0, body.length >> 1), () => res.destroy());
      return;
    }
    if (kind === 'reset') {
      entry.fault = 'reset';
      // once the half is on its way (a reset discards what the peer has not read yet)
      res.write(body.subarray(0, body.length >> 1), () => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          res.socket?.resetAndDestroy();
        }, 50);
        this.timers.add(t);
      });
      return;
    }
    // Slow: a tenth of a second's worth at a time. Chunked: in four pieces.
    const step = kind === 'slow' ? Math.max(1, Math.floor(this.options.slowBytesPerSecond / 10)) : chunked ? Math.ceil(body.length / 4) : body.length;
    const pause = kind === 'slow' ? 100 : 0;
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
      }, pause);
      this.timers.add(t);
    };
    next();
  }
}
