// `convoduck status` as text: what src/status/read-status.ts read from the database, for a person.

import type { CountOffStatus, ListingGapStatus, RunStatus, SpaceStatus, StatusReport } from '../../status/report.js';
import { SKEW_WARN_SECONDS } from '../sync/describe.js';
import { formatDuration } from '../sync/progress.js';
import { tallySpaces, type SpaceState } from '../tally.js';
import { countsMoreThanServed, SERVED_IS_TRUSTED } from '../../shared/count-off.js';

function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

/** An instant as status.ts read it: already in the one format every output prints. */
function shortTime(isoText: string | null): string {
  return isoText || '-';
}

function duration(sec: number | null): string {
  if (sec === null) return '-';
  if (sec < 60) return `${sec.toFixed(sec < 10 ? 1 : 0)}s`;
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m}m${String(Math.round(sec % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** e.g. `listing gap: 1 conversation missing in 2026-11-01T00:00:00Z … 2026-11-02T00:00:00Z (run 7); …` */
function describeListingGap(g: ListingGapStatus): string {
  const what = `${thousands(g.missing)} conversation${g.missing === 1 ? '' : 's'} missing`;
  const where = `${g.from === null ? 'the beginning' : shortTime(g.from)} … ${shortTime(g.to)}`;
  const windows = g.windows > 1 ? `, ${g.windows} windows` : '';
  const next = g.nextSyncRelists
    ? 'the next sync lists it again'
    : g.from === null
      ? 'list it again with `convoduck sync --full`'
      : `list it again with \`convoduck sync --since ${g.from} --until ${g.to}\``;
  return `listing gap: ${what} in ${where} (run ${g.runId}${windows}); ${next}`;
}

/** e.g. `server count off: space acme counts 3 conversations more than it serves in … (run 7); what is served is trusted` */
function describeCountOff(c: CountOffStatus): string {
  const where = `${c.from === null ? 'the beginning' : shortTime(c.from)} … ${shortTime(c.to)}`;
  return `server count off: space ${c.space} ${countsMoreThanServed(c.excess)} in ${where} (run ${c.runId}); ${SERVED_IS_TRUSTED}`;
}

function grid(header: string[], rows: string[][], rightAligned: boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** A run's status; the run a live sync is writing says which process it is. */
function runState(r: RunStatus, sync: StatusReport['syncRunning']): string {
  if (r.stale) return 'running? (killed)';
  if (r.status === 'running' && sync) return `running (pid ${sync.pid})`;
  return r.status;
}

/** A run that put the last-good copy in place of a damaged file: when the copy was taken, where the damaged file is. */
export function describeRestore(r: Pick<RunStatus, 'runId' | 'restoredFromCopyAt' | 'damagedFileKeptAs'>): string {
  return (
    `run ${r.runId}: the file was damaged and was restored from its last-good copy of ${shortTime(r.restoredFromCopyAt!)} ` +
    `(what came after the copy was fetched again); the damaged file is kept as ${r.damagedFileKeptAs ?? '?'}`
  );
}

/** The server's clock against this machine's, as the run that last measured it found it. */
function describeSkew(r: RunStatus): string {
  const skew = r.clockSkewSeconds!;
  return `server clock: ${formatDuration(Math.abs(skew))} ${skew < 0 ? 'behind' : 'ahead of'} this machine's (run ${r.runId}); listing follows the server's times`;
}

export function renderStatus(s: StatusReport): string {
  const out: string[] = [];
  out.push(
    `database   ${s.database.path} (${bytes(s.database.sizeBytes)}, schema ${s.database.schemaVersion ?? '?'})`,
    `sync       ${s.syncRunning ? `running (pid ${s.syncRunning.pid})` : 'not running'}`,
    `watermark  ${s.watermark ? `${shortTime(s.watermark)} (every conversation started before it is listed${s.spaces.length > 1 ? ', in every space' : ''})` : 'none yet (no complete listing)'}`,
    ...s.listingGaps.map(describeListingGap),
    ...s.countOff.map(describeCountOff),
    `newest     ${s.newestConversationAt ? `conversation started ${shortTime(s.newestConversationAt)}` : 'no conversations yet'}`,
  );
  const skewed = s.runs.find((r) => r.clockSkewSeconds !== null);
  if (skewed && Math.abs(skewed.clockSkewSeconds!) > SKEW_WARN_SECONDS) out.push(describeSkew(skewed));
  out.push('');

  // several spaces: each one's watermark, last run and pending details, and the space of each run
  const many = s.spaces.length > 1;
  if (many) out.push(...renderSpaces(s.spaces, s.syncRunning), '');

  if (s.runs.length === 0) {
    out.push('runs       none yet: run `convoduck sync`', '');
  } else {
    out.push(`last ${s.runs.length} run${s.runs.length === 1 ? '' : 's'}`);
    const rows = s.runs.map((r) => [
      String(r.runId),
      ...(many ? [r.space ?? '-'] : []),
      shortTime(r.startedAt),
      duration(r.durationSec),
      runState(r, s.syncRunning),
      thousands(r.conversationsListed),
      thousands(r.detailsFetched),
      thousands(r.errors),
      thousands(r.requests),
      thousands(r.throttled),
    ]);
    for (const line of grid(
      ['run', ...(many ? ['space'] : []), 'started', 'took', 'status', 'listed', 'stored', 'errors', 'requests', 'throttled'],
      rows,
      [true, ...(many ? [false] : []), false, true, false, true, true, true, true, true],
    )) {
      out.push(`  ${line}`);
    }
    const failed = s.runs.find((r) => r.message);
    if (failed) out.push(`  run ${failed.runId}: ${failed.message}`);
    const restored = s.runs.find((r) => r.restoredFromCopyAt !== null);
    if (restored) out.push(`  ${describeRestore(restored)}`);
    out.push('');
  }

  out.push('tables');
  for (const line of grid(
    ['table', 'rows'],
    Object.entries(s.tables).map(([t, n]) => [t, thousands(n)]),
    [false, true],
  ).slice(1)) {
    out.push(`  ${line}`);
  }
  out.push('');

  const d = s.details;
  const pct = d.coverage === null ? '' : ` (${(d.coverage * 100).toFixed(1)}%)`;
  out.push(
    'details',
    `  listed ${thousands(d.listed)}, stored ${thousands(d.stored)}${pct} (coerced ${thousands(d.coerced)}), missing ${thousands(d.missing)}, ` +
      `set aside ${thousands(d.setAside)}, deleted at the source ${thousands(d.deleted)}, failing ${thousands(d.failing)}`,
    `  pending ${thousands(d.pending)} (no detail stored yet: missing, or set aside whose listing changed; fetched by the next sync)`,
    '',
  );
  const r = s.recordings;
  // only once recordings are downloaded: a database synced without them has none to count
  if (r.tried > 0) {
    out.push(`recordings: ${thousands(r.expected)} expected, ${thousands(r.stored)} stored, ${thousands(r.missing)} missing, ${thousands(r.expired)} expired`, '');
  }

  const o = s.openConversations;
  out.push(
    o.count === 0
      ? 'open       no conversation in progress'
      : `open       ${thousands(o.count)} conversation${o.count === 1 ? '' : 's'} not final (stored; fetched again once final), oldest started ${shortTime(o.oldestStartedAt)}` +
          (o.olderThan24h > 0 ? `; ${thousands(o.olderThan24h)} started over 24 h ago` : ''),
    '',
  );

  if (s.errors.total === 0) {
    out.push('errors     none recorded');
  } else if (s.errors.recent.length === 0) {
    out.push(`errors     ${thousands(s.errors.total)} recorded, none in the last ${s.runs.length} run(s)`);
  } else {
    out.push(`errors     ${thousands(s.errors.total)} recorded; in the last ${s.runs.length} run(s):`);
    const rows = s.errors.recent.map((g) => [
      g.stage,
      g.httpStatus === null ? '-' : String(g.httpStatus),
      thousands(g.count),
      thousands(g.conversations),
      shortTime(g.lastAt),
      g.lastMessage.length > 60 ? `${g.lastMessage.slice(0, 59)}…` : g.lastMessage,
    ]);
    for (const line of grid(
      ['stage', 'http', 'count', 'conversations', 'last', 'last message'],
      rows,
      [false, true, true, true, false, false],
    )) {
      out.push(`  ${line}`);
    }
    out.push('  details: convoduck query "SELECT * FROM sync_errors ORDER BY occurred_at DESC LIMIT 20"');
  }
  return out.join('\n') + '\n';
}

/** One line per space: its watermark, its last run and what the next sync fetches for it; then their tally. */
function renderSpaces(spaces: SpaceStatus[], sync: StatusReport['syncRunning']): string[] {
  return [
    `spaces     ${spaces.length}`,
    ...spaceGrid(spaces.map((sp) => spaceRow(sp, sync))).map((line) => `  ${line}`),
    `  ${tallySpaces(spaces.map((sp) => spaceState(sp)))}`,
  ];
}

/** A space's state in the tally, by its last run (null: the space has no file or no run yet). */
export function spaceState(sp: Pick<SpaceStatus, 'lastRun'> | null): SpaceState {
  const run = sp?.lastRun ?? null;
  if (run === null) return 'neverSynced';
  if (run.stale) return 'killed';
  switch (run.status) {
    case 'ok':
      return 'synced';
    case 'errors':
      return 'withErrors';
    case 'running':
      return 'running';
    case 'interrupted':
      return 'interrupted';
    default:
      return 'failed';
  }
}

/** A space's line of the spaces table: slug, watermark, last run, its status, listed, stored, pending, open. */
export function spaceRow(sp: SpaceStatus, sync: StatusReport['syncRunning']): string[] {
  const run = sp.lastRun;
  const state = run === null ? '-' : run.stale ? 'running? (killed)' : run.status === 'running' && sync ? 'running' : run.status;
  return [
    sp.space,
    shortTime(sp.watermark),
    run === null ? 'none yet' : `${shortTime(run.startedAt)} (run ${run.runId})`,
    state,
    thousands(sp.listed),
    thousands(sp.stored),
    thousands(sp.pending),
    thousands(sp.open),
  ];
}

/** The spaces table, its rows from spaceRow. */
export function spaceGrid(rows: string[][]): string[] {
  return grid(['space', 'watermark', 'last run', 'status', 'listed', 'stored', 'pending', 'open'], rows, [false, false, false, false, true, true, true, true]);
}
