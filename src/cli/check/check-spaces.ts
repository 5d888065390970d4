// `check --config FILE` (or `--space SLUG`): every space of the config checked at once, each with its
// own client and key, so each key spends at most MAX_CHECK_REQUESTS of its own budget. Each space's
// findings under its slug; a refused key, or one that cannot be read (unset variable, unreadable
// file), is one line on stderr naming the space and where its key came from (never the key), and
// the other spaces are checked all the same; a tally ends the output. Exit the worst of the
// spaces' (3 a key refused or unreadable, else 1 fails, else 0).

import { checkServer, type CheckReport } from '../../check/probes.js';
import { SpaceNotInJobError } from '../../crawler/sync-spaces.js';
import { printOneSpace, renderFinding, stepPrinter, toJson, useColor, type CheckFlags } from './render.js';
import { EXIT } from '../errors.js';
import { parsePositiveInt } from '../parse.js';
import { resolveSpaces, type SpaceSettings } from '../config/settings.js';
import { spaceDbPath } from '../../store/space-files.js';
import { describeShard, needsSlugs, ownedSpaces, resolveLayoutAndShard, type SyncScope } from '../sync/shard-scope.js';
import { countStates, keyProblemState, tallySpaces, type SpaceState } from '../tally.js';

interface Checked {
  settings: SpaceSettings;
  report: CheckReport;
}

export async function checkSpacesCommand(flags: CheckFlags, configFile: string | null): Promise<void> {
  // as sync would take them: with --db-dir or shards, every space by slug, and only the shard's
  const where = resolveLayoutAndShard(flags);
  if (configFile === null && needsSlugs(where)) ownedSpaces([], where, null); // sync's refusal, before any key is read
  // A space whose key cannot be read is judged like one whose key is refused: the others are checked.
  const scope = ownedSpaces(resolveSpaces(flags, configFile, { keys: 'skip-unreadable' }), where, configFile);
  const spaces = scope.owned;
  const flagRpm = flags.maxRpm !== undefined ? parsePositiveInt('--max-rpm', flags.maxRpm) : undefined;
  const only = (flags.space ?? []).length > 0 ? new Set(flags.space) : null;
  const configured = spaces.map((s) => s.slug).filter((s): s is string => s !== undefined);
  if (only !== null && spaces.every((s) => s.slug !== undefined)) refuseUnknown(only, configured);

  // A space without a slug in the config must be asked for it; the check then stops there unless it is wanted.
  const wanted = spaces.filter((s) => only === null || s.slug === undefined || only.has(s.slug));
  const unreadable = wanted.filter((s) => s.keyProblem !== undefined);
  const asked = wanted.filter((s) => s.keyProblem === undefined);
  const progress = stepPrinter(process.stderr);
  let checked: Checked[];
  try {
    checked = await Promise.all(
      asked.map(async (settings) => {
        const report = await checkServer({
          baseUrl: settings.baseUrl,
          apiKey: settings.apiKey,
          ...(settings.slug !== undefined ? { expectSpace: settings.slug } : {}),
          // --max-rpm caps every space, as in sync; a space's own max_rpm may be lower
          ...(settings.maxRpm !== undefined || flagRpm !== undefined ? { maxRpm: Math.min(settings.maxRpm ?? Infinity, flagRpm ?? Infinity) } : {}),
          ...(only !== null && settings.slug === undefined ? { wanted: (slug: string) => only.has(slug) } : {}),
          // the file sync writes the space to: the one database, or with --db-dir the space's own
          ...(scope.layout.kind === 'file' ? { dbPath: scope.layout.path } : settings.slug !== undefined ? { dbPath: spaceDbPath(scope.layout.dir, settings.slug) } : {}),
          onStep: (what) => progress.step(`${settings.slug ?? settings.label}: ${what}`),
        });
        return { settings, report };
      }),
    );
  } finally {
    progress.finish();
  }

  // A space whose key could not name its space may be the one asked for: it is shown, not refused.
  const unnamed = checked.filter((c) => c.settings.slug === undefined && c.report.space === null);
  if (only !== null && unnamed.length === 0) {
    refuseUnknown(only, [...new Set([...configured, ...checked.flatMap((c) => c.report.space ?? [])])]);
  }
  const kept = checked.filter((c) => c.report.outcome !== 'left-out');
  if (configFile === null) return printOneSpace(kept[0]!.report, flags.json === true);
  const shardLine = describeShard(scope);
  const shown = kept.map(inConfigTerms);

  const keys = spaces.filter((s) => s.apiKey !== '').map((s) => s.apiKey);
  const problems = shown.map(refusalLine);
  const unread = unreadable.map((s) => `${s.keyProblem!} (this space not checked; the others were)`);
  for (const line of [...problems, ...unread]) if (line !== null) process.stderr.write(redact(`convoduck: ${line}`, keys) + '\n');
  const refused = unreadable.length > 0 || shown.some((c) => c.report.outcome === 'refused');
  const exitCode = refused ? EXIT.auth : shown.every((c) => c.report.outcome === 'works') ? EXIT.ok : EXIT.failed;
  const states: SpaceState[] = [...shown.map(stateOf), ...unreadable.map((s) => keyProblemState(s.keyProblemKind!))];
  if (flags.json) {
    const outcome = {
      syncWouldWork: exitCode === EXIT.ok,
      outcome: exitCode === EXIT.ok ? 'works' : exitCode === EXIT.auth ? 'refused' : 'fails',
      exitCode,
      requests: shown.reduce((sum, c) => sum + c.report.requests, 0),
      ...(scope.shard ? { shard: { count: scope.shard.count, index: scope.shard.index, spaces: spaces.map((s) => s.slug!) } } : {}),
      tally: countStates(states),
      spaces: [
        ...shown.map((c, i) => ({ ...toJson(c.report), space: nameOf(c), ...fileOf(c, scope), error: problems[i] })),
        ...unreadable.map((s, i) => ({ syncWouldWork: false, outcome: 'unreadable-key', space: s.slug ?? s.label, requests: 0, findings: [], error: unread[i] })),
      ],
    };
    process.stdout.write(redact(JSON.stringify(outcome, null, 2), keys) + '\n');
  } else {
    const color = useColor(process.stdout);
    const blocks = shown.map((c) => [headerOf(c, scope), ...c.report.findings.map((f) => renderFinding(f, color)), c.report.verdict].join('\n'));
    for (const s of unreadable) {
      const header = s.slug !== undefined ? `space ${s.slug}` : s.label;
      const finding = renderFinding({ status: 'fail', name: 'key', message: `key not read: ${s.keyProblem!}`, values: {} }, color);
      blocks.push([header, finding, '→ a sync would not work as things are: see key above'].join('\n'));
    }
    if (shardLine !== null) blocks.unshift(shardLine);
    if (states.length > 1) blocks.push(tallySpaces(states));
    if (blocks.length > 0) process.stdout.write(redact(blocks.join('\n\n'), keys) + '\n');
  }
  process.exitCode = exitCode;
}


/** The space's state in the tally. */
function stateOf(c: Checked): SpaceState {
  return c.report.outcome === 'works' ? 'ready' : c.report.outcome === 'refused' ? 'refusedKey' : 'wouldFail';
}

/** A refusal's advice names where the config took the key from, not the one-space settings. */
function inConfigTerms(c: Checked): Checked {
  const findings = c.report.findings.map((f) => {
    const cut = f.message.indexOf(REFUSED_401);
    if (f.values.refused !== true || cut < 0) return f;
    return { ...f, message: `${f.message.slice(0, cut)}${REFUSED_401}: check ${c.settings.keySource}` };
  });
  return { settings: c.settings, report: { ...c.report, findings } };
}

const REFUSED_401 = '. The API key was not accepted';

/** Its slug (from GET /spaces, else the config), else how the config names it. */
function nameOf(c: Checked): string {
  return c.report.space ?? c.settings.slug ?? c.settings.label;
}

/** `space SLUG` (with --db-dir: and the file sync writes it to), or the config's label (`[[space]] #2 (line 7)`) when no slug is known. */
function headerOf(c: Checked, scope?: SyncScope): string {
  const file = scope ? fileOf(c, scope).file : undefined;
  if (c.report.space === null && c.settings.slug === undefined) return c.settings.label;
  return `space ${nameOf(c)}${file ? ` → ${file}` : ''}`;
}

/** With --db-dir, the file the space is synced into (by its config slug, as sync names it). */
function fileOf(c: Checked, scope: SyncScope): { file?: string } {
  return scope.layout.kind === 'dir' && c.settings.slug !== undefined ? { file: spaceDbPath(scope.layout.dir, c.settings.slug) } : {};
}

/** The one line a refused key gets: the space and where its key came from. */
function refusalLine(c: Checked): string | null {
  if (c.report.outcome !== 'refused') return null;
  const refused = c.report.findings.find((f) => f.values.refused === true)?.values;
  const status = refused ? ` (${String(refused.httpStatus)} ${String(refused.code)})` : '';
  return `${headerOf(c)}: the API refused its key${status}: check ${c.settings.keySource}`;
}

function refuseUnknown(only: Set<string>, known: string[]): void {
  const unknown = [...only].filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new SpaceNotInJobError(unknown, [...known].sort());
}

/** No key ever reaches stdout or stderr, whatever a message picked up. */
function redact(text: string, keys: string[]): string {
  let out = text;
  for (const key of keys) for (const form of [key, JSON.stringify(key).slice(1, -1)]) out = out.split(form).join('[api key]');
  return out;
}
