// `sync --config FILE` (or `--space SLUG`): every space of the config crawled at once into one
// database, or each into its own file of `--db-dir`, or only those this shard owns (shard-scope.ts).
// Per space: its summary on stderr, one line when it did not end well (naming the space, never
// its key), then a tally of the spaces by how they ended; with --json one object holding each
// space's summary and the tally. Exit 0 when every space is fine,
// 3 when any key was refused or could not be read, 1 for any other recorded error, 75 when every
// space was left to another sync, 130 when interrupted.

import { AuthError } from '../../api/client.js';
import { SpaceNotInJobError, type SpaceTarget } from '../../crawler/sync-spaces.js';
import { preferSmallHeap } from '../../shared/heap.js';
import { holderName, SyncLockedError } from '../../store/sync-lock.js';
import { describeClock, describeCountOff, describeListingGap, describeRestored, describeSummary, problemOf, runErrorOf, type SyncFlags } from './describe.js';
import { EXIT } from '../errors.js';
import { resolveSpaces, type SpaceSettings } from '../config/settings.js';
import { spacesProgressPrinter } from './spaces-progress.js';
import { INTERRUPTED_EXIT, type SyncOutcomeStatus } from './outcome.js';
import { interruptible, parseRunFlags } from './flags.js';
import { retainAfterSync } from './retain-after-sync.js';
import { recordingsDir, recordingsHook, recordingsRun } from './recordings.js';
import { resolveRedactAtRest, storedRedacted } from '../config/redaction.js';
import { describeShard, needsSlugs, ownedSpaces, resolveLayoutAndShard, type SyncScope } from './shard-scope.js';
import { runSpaces, type RunSpaceOutcome, type RunSpacesSummary } from './run-spaces.js';
import { formatDuration } from './progress.js';
import { countStates, keyProblemState, tallySpaces, type SpaceState } from '../tally.js';

/** `metrics.dbPaths`: set to the files this run wrote, for --metrics-file. */
export async function syncSpacesCommand(flags: SyncFlags & { apiKey?: string }, configFile: string | null, metrics: { dbPaths?: string[] } = {}): Promise<void> {
  let keys: string[] = [];
  let scope: SyncScope | null = null;
  try {
    const run = parseRunFlags(flags, new Date());
    const where = resolveLayoutAndShard(flags);
    // A space whose key cannot be read is skipped like one whose key is refused: the others run.
    scope = ownedSpaces(resolveSpaces(flags, configFile, { keys: 'skip-unreadable' }), where, configFile);
    const { layout } = scope;
    const configured = scope.owned;
    const asked = flags.space ?? [];
    if (needsSlugs(scope)) {
      const unknown = asked.filter((slug) => !configured.some((s) => s.slug === slug));
      if (unknown.length > 0) throw new SpaceNotInJobError(unknown, configured.map((s) => s.slug!).sort());
    }
    const unreadable = configured.filter((s) => s.keyProblem && (asked.length === 0 || s.slug === undefined || asked.includes(s.slug)));
    const spaces = configured.filter((s) => !s.keyProblem);
    const only = asked.filter((slug) => !unreadable.some((s) => s.slug === slug));
    keys = spaces.map((s) => s.apiKey);
    metrics.dbPaths = layout.kind === 'file' ? [layout.path] : [];
    // (a shard that owns nothing says so last, as its one line)
    if (scope.owned.length > 0 && scope.shard !== null) process.stderr.write(`${describeShard(scope)}\n`);
    const atRest = resolveRedactAtRest(flags.redactAtRest, spaces.map((s) => s.redactAtRest));
    const targets: (SpaceTarget & { recordingsDir: string | null })[] = spaces.map((s, i) => ({
      label: s.label,
      baseUrl: s.baseUrl,
      apiKey: s.apiKey,
      // --max-rpm caps every space; a space's own max_rpm may be lower
      maxRpm: minDefined(s.maxRpm, run.maxRpm),
      windowMs: run.windowMs,
      redactAtRest: atRest[i] ?? null,
      recordingsDir: recordingsDir(flags.recordings, s.recordings),
      ...(s.slug !== undefined ? { slug: s.slug } : {}),
    }));
    const progress = spacesProgressPrinter();
    const recordings = recordingsRun(flags.recordingsBandwidth, targets.map((t) => t.recordingsDir), run.full === true, progress.say);
    let summary: RunSpacesSummary = { spaces: [], seconds: 0 };
    try {
      preferSmallHeap();
      // (every space asked for has an unreadable key: nothing to crawl)
      if (targets.length > 0 && !(asked.length > 0 && only.length === 0)) summary = await interruptible((signal) =>
        runSpaces(
          targets.map(({ recordingsDir: dir, ...t }) => ({ ...t, recordings: recordingsHook(dir, recordings, signal) })),
          layout,
          {
            only,
            details: run.details,
            since: run.since,
            until: run.until,
            full: run.full,
            retrySetAside: run.retrySetAside,
            overlapMs: run.overlapMs,
            lockWaitMs: run.lockWaitMs,
            lockLeaseMs: run.lockLeaseMs,
            signal,
            onProgress: progress.update,
            onRestored: (r) => progress.say(redact(describeRestored(r), keys)),
          },
          storedRedacted,
        ),
      );
    } finally {
      progress.finish();
    }
    if (layout.kind === 'dir') metrics.dbPaths = summary.spaces.filter((o) => o.status !== 'skipped').map((o) => o.dbPath);

    // each space's own retain_days / erase_deleted, else the flags', in the space's file
    const retained = summary.spaces.filter((o) => o.summary && o.status !== 'interrupted');
    for (const file of new Set(retained.map((o) => o.dbPath))) {
      const policies = retained
        .filter((o) => o.dbPath === file)
        .map((o) => ({
          space: o.space,
          retainDays: spaces[o.target]!.retainDays ?? run.retention.retainDays,
          eraseDeletedAtSource: spaces[o.target]!.eraseDeleted ?? run.retention.eraseDeletedAtSource,
        }));
      try {
        await retainAfterSync(file, policies);
      } catch (err) {
        // another sync took a space's file between its crawl and its retention: it erases after its own run
        if (layout.kind === 'file' || !(err instanceof SyncLockedError)) throw err;
        process.stderr.write(`convoduck: space ${policies[0]!.space}: retention left to the sync that now holds ${file} (${holderName(err.pid, err.host)})\n`);
      }
    }
    const skipped = unreadable.map((s) => `${s.keyProblem} (this space skipped; the others ran)`);
    const lines = [...summary.spaces.map((o) => lineOf(o, spaces[o.target]!)), ...skipped];
    for (const o of summary.spaces) if (o.summary) process.stderr.write(describeSummary(o.summary, o.dbPath) + '\n');
    for (const o of summary.spaces) {
      const clock = o.summary ? describeClock(o.summary) : null;
      if (clock) process.stderr.write(redact(clock, keys) + '\n');
      const countOff = o.summary ? describeCountOff(o.summary) : null;
      if (countOff) process.stderr.write(redact(countOff, keys) + '\n');
    }
    for (const line of lines) if (line !== null) process.stderr.write(redact(`convoduck: ${line}`, keys) + '\n');
    if (scope.shard !== null && scope.owned.length === 0) process.stderr.write(`convoduck: ${describeShard(scope)}\n`);
    const states: SpaceState[] = [...summary.spaces.map((o) => STATES[o.status]), ...unreadable.map((s) => keyProblemState(s.keyProblemKind!))];
    if (states.length > 1) process.stderr.write(`${tallySpaces(states)}\n`);
    const exitCode = exitCodeOf(summary.spaces, skipped.length > 0);
    if (flags.json) {
      // a space left to another sync is no problem of this run, unless every space was
      const problems = lines.filter((l, i): l is string => l !== null && (exitCode === EXIT.busy || summary.spaces[i]?.status !== 'skipped'));
      const error = problems.length === 0 ? null : problems.length === 1 ? problems[0]! : `${problems.length} of ${summary.spaces.length} spaces did not end well: ${problems.join('; ')}`;
      const inDir = layout.kind === 'dir';
      const outcome = {
        status: statusOf(exitCode),
        exitCode,
        error,
        seconds: summary.seconds,
        ...shardOf(scope),
        tally: countStates(states),
        spaces: [
          ...summary.spaces.map((o, i) => ({ ...(o.summary ?? o.counters ?? {}), space: o.space, status: o.status, error: lines[i], ...(inDir ? { db: o.dbPath } : {}) })),
          ...unreadable.map((s, i) => ({ space: s.slug ?? s.label, status: 'refused', error: skipped[i] })),
        ],
      };
      process.stdout.write(redact(JSON.stringify(outcome), keys) + '\n');
    }
    process.exitCode = exitCode;
  } catch (err) {
    const known = runErrorOf(err);
    known.message = redact(known.message, keys);
    if (flags.json) {
      const outcome = { status: statusOf(known.exitCode), exitCode: known.exitCode, error: known.message.split('\n')[0]!, ...(scope ? shardOf(scope) : {}), spaces: [] };
      process.stdout.write(redact(JSON.stringify(outcome), keys) + '\n');
      known.outcomePrinted = true;
    }
    throw known;
  }
}

/** A space's state in the tally, by how its part of the run ended. */
const STATES: Record<RunSpaceOutcome['status'], SpaceState> = {
  ok: 'synced',
  errors: 'withErrors',
  interrupted: 'interrupted',
  refused: 'refusedKey',
  unreachable: 'unreachable',
  failed: 'failed',
  skipped: 'busy',
  usage: 'refusedSettings',
};

/** `shard` in --json: the shard and the spaces it owns (nothing when not sharded). */
function shardOf(scope: SyncScope): { shard?: { count: number; index: number; spaces: string[] } } {
  if (scope.shard === null) return {};
  return { shard: { count: scope.shard.count, index: scope.shard.index, spaces: scope.owned.map((s) => s.slug!) } };
}

/** The one line a space that did not end well gets (null when it did). */
function lineOf(o: RunSpaceOutcome, settings: SpaceSettings): string | null {
  const name = o.summary || o.counters || settings.slug !== undefined ? `space ${o.space}` : settings.label;
  // an error that already names its space (`space X: …`) is said once
  const said = (err: unknown) => [name, settings.label].reduce((text, n) => (text.startsWith(`${n}: `) ? text.slice(n.length + 2) : text), firstLine(err));
  switch (o.status) {
    case 'ok':
      return null;
    case 'refused': {
      const status = o.error instanceof AuthError ? ` (${o.error.status} ${o.error.code})` : '';
      return `${name}: the API refused its key${status}: check ${settings.keySource} — skipped; the other spaces ran`;
    }
    case 'unreachable':
      return `${name}: the API could not be asked for the space: ${said(o.error)} — skipped; the next run tries again`;
    case 'failed':
      return `${name}: sync failed: ${said(o.error)} (what was fetched is kept; run sync again to resume)`;
    case 'interrupted':
      return `${name}: sync interrupted: what was fetched is kept; run sync again to resume`;
    case 'skipped': {
      const err = o.error as SyncLockedError;
      const waited = err.waitedMs > 0 ? ` (still after waiting ${formatDuration(err.waitedMs / 1000)})` : '';
      return `${name}: another convoduck sync (${holderName(err.pid, err.host)}) is already writing ${o.dbPath}${waited}: skipped by this run, left to it (--wait DURATION waits for it)`;
    }
    case 'usage':
      return `${name}: ${said(o.error)} (nothing stored for this space)`;
    case 'errors': {
      if (o.summary?.listingGap) return `${name}: ${describeListingGap(o.summary.listingGap).replace(/^convoduck: /, '')}`;
      return `${name}: ${o.summary ? problemOf(o.summary) : 'errors recorded'}`;
    }
  }
}

/**
 * 130 when interrupted, else 2 when a space's settings were refused, else 3 when any key was
 * refused or unreadable, else 1 when any space that ran did not end well, else 75 when every space
 * was left to another sync; a space left to another sync is that sync's to finish, not an error.
 */
function exitCodeOf(outcomes: RunSpaceOutcome[], unreadableKeys: boolean): number {
  if (outcomes.some((o) => o.status === 'interrupted')) return INTERRUPTED_EXIT;
  if (outcomes.some((o) => o.status === 'usage')) return EXIT.usage;
  if (unreadableKeys || outcomes.some((o) => o.status === 'refused')) return EXIT.auth;
  if (outcomes.some((o) => o.status !== 'ok' && o.status !== 'skipped')) return EXIT.failed;
  if (outcomes.length > 0 && outcomes.every((o) => o.status === 'skipped')) return EXIT.busy;
  return EXIT.ok;
}

function statusOf(exitCode: number): SyncOutcomeStatus {
  if (exitCode === EXIT.ok) return 'ok';
  if (exitCode === EXIT.usage) return 'usage';
  if (exitCode === EXIT.busy) return 'skipped';
  if (exitCode === EXIT.auth) return 'refused';
  if (exitCode === INTERRUPTED_EXIT) return 'interrupted';
  return 'errors';
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/** No key ever reaches stdout or stderr, whatever a message picked up. */
function redact(text: string, keys: string[]): string {
  let out = text;
  for (const key of keys) for (const form of [key, JSON.stringify(key).slice(1, -1)]) out = out.split(form).join('[api key]');
  return out;
}
