// Progress on stderr: a redrawn line on a terminal, a plain log line every few seconds
// otherwise (cron and CI logs must stay readable).

import type { WaitReason } from '../api/rate-limiter.js';
import type { SyncProgress } from '../crawler/sync.js';

const LOG_EVERY_MS = 5_000;
const REDRAW_EVERY_MS = 200;

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): {
  update: (p: SyncProgress) => void;
  finish: () => void;
} {
  const tty = stream.isTTY === true;
  let last = 0;
  let lastPhase = '';
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      const phaseChanged = p.phase !== lastPhase;
      lastPhase = p.phase;
      if (!phaseChanged && now - last < (tty ? REDRAW_EVERY_MS : LOG_EVERY_MS)) return;
      last = now;
      const line = describe(p, now);
      if (tty) {
        stream.write(`\r\x1b[2K${fit(line, stream.columns)}`);
        drawn = true;
      } else if (p.phase !== 'done') {
        stream.write(`${new Date(now).toISOString()} ${line}\n`);
      }
    },
    finish() {
      if (tty && drawn) stream.write('\r\x1b[2K');
    },
  };
}

export function describe(p: SyncProgress, now: number): string {
  const minutes = Math.max((now - p.startedAt.getTime()) / 60_000, 1 / 60);
  const rpm = Math.round(p.requests / minutes);
  const parts = [`${p.phase}`];
  parts.push(`listed ${p.listed}${p.listTotal !== null ? `/${p.listTotal}` : ''}`);
  if (p.phase === 'details' || p.detailsTotal > 0) {
    parts.push(`details ${p.detailsDone}/${p.detailsTotal}${bar(p.detailsDone, p.detailsTotal)}`);
  }
  parts.push(`${p.requests} requests (${rpm}/min)`);
  if (p.throttled > 0) parts.push(`${p.throttled} throttled`);
  if (p.errors > 0) parts.push(`${p.errors} errors`);
  if (p.phase === 'details' && p.detailsDone > 0 && p.detailsTotal > p.detailsDone) {
    const perMinute = p.detailsDone / minutes;
    parts.push(`ETA ${formatDuration(((p.detailsTotal - p.detailsDone) / perMinute) * 60)}`);
  }
  // A wait of a second or two is the rate limit working; a longer one is said, with its reason.
  if (p.waiting && p.waiting.ms >= 2_000) parts.push(`waiting ${formatDuration(p.waiting.ms / 1000)}: ${WAIT_REASONS[p.waiting.reason]}`);
  return parts.join(' · ');
}

const WAIT_REASONS: Record<WaitReason, string> = {
  'retry-after': 'the server answered 429, waiting as its Retry-After says',
  'own-window': 'this minute’s budget is spent (--max-rpm or the key’s limit)',
  'other-client': 'another client, or an earlier run, is using the key’s budget',
  refill: 'the server frees requests at a steady rate',
  'first-response': 'one request is out to see how full the server is',
  spacing: 'spacing requests',
};

/** A line cut to the terminal's width, so that redrawing it never wraps. */
function fit(line: string, columns: number | undefined): string {
  if (!columns || columns < 10 || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}

function bar(done: number, total: number): string {
  if (total === 0) return '';
  const width = 20;
  const filled = Math.round((done / total) * width);
  return ` [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
