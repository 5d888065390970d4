// Progress on stderr: a redrawn line on a terminal, a plain log line every few seconds
// otherwise (cron and CI logs must stay readable).

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
        stream.write(`\r\x1b[2K${line}`);
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
  return parts.join(' · ');
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
