// Progress on stderr: a redrawn line on a terminal, a plain log line at least every 5 seconds
// otherwise (cron and CI logs must stay readable, and a silent log looks like a hung job).
// No colour is used, so NO_COLOR needs nothing here.

import type { WaitReason } from '../../api/rate-limiter.js';
import type { SyncProgress } from '../../crawler/sync.js';

/** A log line is due this long after the last one; the sync reports every 250 ms, so no gap exceeds 5 s. */
const LOG_EVERY_MS = 4_750;
const REDRAW_EVERY_MS = 200;
/** a wait of a second or two is the rate limit working; a longer one is said, with its reason */
const SAY_WAIT_AFTER_MS = 2_000;
/** the share of the rate window a run's sends must span before its own pace sets an ETA */
const PACE_MIN_WINDOW_SHARE = 0.25;

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): {
  update: (p: SyncProgress) => void;
  /** a line of its own (a note, a warning): on a terminal it replaces the drawn line, redrawn after it */
  say: (line: string) => void;
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
      if (tty) {
        // erase the row, then a line one column short of the width: the cursor never wraps
        stream.write(`\r\x1b[2K${fitParts(describeParts(p, true), (stream.columns || 80) - 1)}`);
        drawn = true;
      } else if (p.phase !== 'done') {
        stream.write(`${new Date(now).toISOString()} ${progressLine(p)}\n`);
      }
    },
    say(line) {
      stream.write(`${tty && drawn ? '\r\x1b[2K' : ''}${line}\n`);
      drawn = false;
      last = 0;
    },
    finish() {
      if (tty && drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

/** One part of the progress line; on a terminal, parts with the highest `drop` go first when it is too wide. */
export interface LinePart {
  text: string;
  /** joined to the previous part with a space rather than ' · ' */
  attach?: boolean;
  drop?: number;
}

/** The full progress line (log files). */
export function progressLine(p: SyncProgress): string {
  return joinParts(describeParts(p, false));
}

/** The line's parts; `short` for a terminal (a bar, brief reasons), otherwise for a log. */
export function describeParts(p: SyncProgress, short: boolean): LinePart[] {
  // the details and recordings phases are named by their count: "details 15/60", not "details · details 15/60"
  const parts: LinePart[] = p.phase === 'details' || p.phase === 'recordings' ? [] : [{ text: p.phase }];
  // first, so a narrow terminal never cuts it: nothing else moves while it lasts
  if (p.connection) parts.push({ text: p.connection.problem }, { text: `retrying (attempt ${p.connection.attempt})` });
  if (p.phase === 'listing' && p.window) {
    parts.push({ text: `window ${p.window.from ?? 'beginning'}..${p.window.to}`, attach: true, drop: 5 });
  }
  if (p.phase === 'recordings') parts.push(...recordingParts(p.recordings ?? { done: 0, total: 0, bytes: 0 }, short, 0));
  if (p.phase === 'details' || p.detailsTotal > 0) {
    const details = { text: `details ${p.detailsDone}/${p.detailsTotal}` };
    parts.push(p.phase === 'recordings' ? { ...details, drop: 3 } : details);
    // a bar only on a terminal: in a log it is noise beside the count
    if (short && p.detailsTotal > 0 && p.phase === 'details') parts.push({ text: bar(p.detailsDone, p.detailsTotal), attach: true, drop: 4 });
  }
  // the downloads beside the crawl, less important than its own counts
  if (p.phase === 'details' && p.recordings && p.recordings.total > 0) parts.push(...recordingParts(p.recordings, false, 3));
  const listed = { text: `listed ${p.listed}${p.listTotal !== null ? `/${p.listTotal}` : ''}` };
  parts.push(p.phase === 'details' || p.phase === 'recordings' ? { ...listed, drop: 3 } : listed);
  parts.push({ text: `${p.requests} requests`, drop: 1 });
  const rate = ratePerMinute(p.rate);
  parts.push({ text: `${rate.sent}/min` });
  parts.push({ text: `(budget ${rate.budget}/min)`, attach: true, drop: 2 });
  if (p.throttled > 0) parts.push({ text: `${p.throttled} throttled`, drop: 1 });
  if (p.errors > 0) parts.push({ text: `${p.errors} errors` });
  // agents and tools come first, before the listing and the details say how much is left
  const eta = p.phase === 'listing' || p.phase === 'details' || p.phase === 'recordings' ? etaSeconds(p) : null;
  if (eta !== null) {
    parts.push({ text: `${p.phase === 'listing' ? 'listing ETA' : 'ETA'} ${eta < 0.5 ? 'under 1s' : formatDuration(eta)}` });
  }
  if (p.waiting && p.waiting.forMs >= SAY_WAIT_AFTER_MS) {
    const next = p.waiting.nextInMs !== null && p.waiting.nextInMs >= 1_000 ? `; next request in ${formatDuration(p.waiting.nextInMs / 1000)}` : '';
    const why = short ? SHORT_WAIT_REASONS[p.waiting.reason] : WAIT_REASONS[p.waiting.reason];
    parts.push({ text: `waiting ${formatDuration(p.waiting.forMs / 1000)}: ${why}${short ? '' : next}` });
  }
  return parts;
}

/** The recordings' count and bytes (a bar on a terminal in their own phase); `drop` for all of them. */
function recordingParts(r: NonNullable<SyncProgress['recordings']>, withBar: boolean, drop: number): LinePart[] {
  const parts: LinePart[] = [{ text: `recordings ${r.done}/${r.total}`, drop }];
  if (withBar && r.total > 0) parts.push({ text: bar(r.done, r.total), attach: true, drop: 4 });
  parts.push({ text: `${(r.bytes / 1e6).toFixed(1)} MB`, drop: Math.max(drop, 2) });
  return parts;
}

/**
 * Requests per minute as the server counts them: our sends in its last window, scaled to a minute
 * when the window is not one; and the budget (what the limiter allows per window) on the same scale.
 */
export function ratePerMinute(rate: SyncProgress['rate']): { sent: number; budget: number } {
  const scale = 60_000 / rate.windowMs;
  return { sent: Math.round(rate.inWindow * scale), budget: Math.round(rate.budget * scale) };
}

/**
 * Seconds until the requests still to send are sent, on the limiter's schedule: the window's free
 * slots go at once, then one as each send in the window leaves it, round after round at the
 * budget per window; a Retry-After pause still running comes first. When the budget has room for
 * all of it, the run's own pace (our sends in the window) sets it instead. Null when it is not
 * known (nothing left to send while answers are awaited, or no pace yet to go by: the phase's
 * sends span less than a quarter of the window);
 * Infinity while the budget is 0 (another client holds the whole key).
 */
export function etaSeconds(
  p: Pick<SyncProgress, 'requestsLeft' | 'rate' | 'waiting' | 'phaseRequests'>,
): number | null {
  const left = p.requestsLeft;
  if (left === null || left <= 0) return null;
  const { inWindow, budget, windowMs } = p.rate;
  if (budget <= 0) return Infinity;
  const paused = p.waiting?.reason === 'retry-after' ? (p.waiting.nextInMs ?? 0) : 0;
  // when each send in the window leaves it, soonest first (without them: the limiter's next slot, the rest evenly spread)
  const known = p.waiting?.reason === 'own-window' || p.waiting?.reason === 'refill' ? (p.waiting.nextInMs ?? 0) : 0;
  const leave =
    p.rate.leaveInMs ??
    Array.from({ length: inWindow }, (_, i) => known + (i * windowMs) / Math.max(1, inWindow));
  const round = Math.min(left, budget);
  const first: number[] = [];
  for (let k = 1; k <= round; k++) {
    const m = leave.length + k - budget; // the send that must leave before this one goes (1-based)
    first.push(Math.max(paused, m <= 0 ? 0 : (leave[m - 1] ?? 0)));
  }
  let last = first[(left - 1) % budget]! + Math.floor((left - 1) / budget) * windowMs;
  // With none of our sends in the window there is no leaving time to go by, and whole-window rounds
  // would hold the ETA still for a window at a time: spread what is left at the budget's pace.
  if (leave.length === 0 && left > budget) last = Math.max(last, paused + ((left - 1) * windowMs) / budget);
  if (last > paused || left > budget - inWindow) return last / 1000;
  // The budget leaves room for all of it now: what holds the run back is its own pace, this phase's
  // sends in the window over the time they span. The sends of an earlier phase (agents, tools, list
  // pages, one at a time) or a phase's first moments say nothing of the pace to come: no ETA until
  // the phase's sends span a share of the window.
  const ours = Math.min(inWindow, p.phaseRequests ?? inWindow);
  const oldest = p.rate.leaveInMs?.[p.rate.leaveInMs.length - ours];
  const span = oldest === undefined ? windowMs : Math.min(windowMs, Math.max(0, windowMs - oldest));
  if (ours > 0 && span < windowMs * PACE_MIN_WINDOW_SHARE) return null;
  const pace = ours > 0 ? (left * span) / ours : 0;
  const eta = Math.max(last, pace) / 1000;
  return eta > 0 ? eta : null;
}

const WAIT_REASONS: Record<WaitReason, string> = {
  'retry-after': 'the server answered 429, waiting as its Retry-After says',
  'own-window': 'this minute’s budget is spent (--max-rpm or the key’s limit)',
  'other-client': 'another client, or an earlier run, is using the key’s budget',
  refill: 'the server frees requests at a steady rate',
  'first-response': 'one request is out to see how full the server is',
  spacing: 'spacing requests',
};

const SHORT_WAIT_REASONS: Record<WaitReason, string> = {
  'retry-after': 'server said 429',
  'own-window': 'budget spent',
  'other-client': 'another client',
  refill: 'server refill',
  'first-response': 'first response',
  spacing: 'spacing',
};

export function joinParts(parts: readonly LinePart[]): string {
  return parts.map((part, i) => (i === 0 ? part.text : `${part.attach ? ' ' : ' · '}${part.text}`)).join('');
}

/**
 * The parts as one line of at most `width` columns: the most droppable parts go first, then the
 * line is cut with '…'.
 */
export function fitParts(parts: readonly LinePart[], width: number): string {
  let kept = [...parts];
  let line = joinParts(kept);
  while (columnsOf(line) > width) {
    const worst = Math.max(...kept.map((p) => p.drop ?? 0));
    if (worst <= 0) break;
    kept = kept.filter((p) => (p.drop ?? 0) !== worst);
    line = joinParts(kept);
  }
  return cut(line, width);
}

/** `line` cut to `width` columns, ending in '…' when cut. */
export function cut(line: string, width: number): string {
  if (columnsOf(line) <= width) return line;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const ch of line) {
    const w = charColumns(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** Terminal columns of a line: one per character ('·', '…', '’' included), none for combining marks, two for wide ones. */
export function columnsOf(text: string): number {
  let n = 0;
  for (const ch of text) n += charColumns(ch);
  return n;
}

function charColumns(ch: string): number {
  const c = ch.codePointAt(0)!;
  if (c < 0x20 || (c >= 0x7f && c < 0xa0)) return 0;
  if ((c >= 0x300 && c <= 0x36f) || c === 0x200b || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) return 0;
  const wide =
    (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0xa4cf) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1faff) ||
    (c >= 0x20000 && c <= 0x3fffd);
  return wide ? 2 : 1;
}

function bar(done: number, total: number): string {
  if (total === 0) return '';
  const width = 20;
  const filled = Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
