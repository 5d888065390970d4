// `check --config`: three simulated spaces (different seeds, keys, slugs) checked over real HTTP by
// the built CLI: each space's findings under its slug, at most five requests per key, one revoked
// key named in one line with its space (never the key) and exit 3, the worst space deciding the
// exit code, --space choosing spaces (an unknown slug: one line, exit 2), one space's output as before.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry, Simulator, SimulatorOptions } from '../src/simulator/index.js';
import { runCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDir } = scratch('check-spaces');

/** Seeds whose spaces have three different slugs. */
const SEEDS = [141, 142, 143] as const;
const SIZES = [260, 180, 120] as const;

const own = (sim: Simulator): RequestLogEntry[] => sim.requestLog.filter((r) => r.client === 'key');

async function threeSpaces(options: (SimulatorOptions | undefined)[] = []): Promise<Simulator[]> {
  const sims = await Promise.all(SEEDS.map((seed, i) => simulator({ seed, conversations: SIZES[i], ...options[i] })));
  expect(new Set(sims.map((s) => s.space)).size).toBe(3);
  return sims;
}

/** A config file for `sims` (keys in variables SPACE_i_KEY); `slugs` writes each space's slug (or one given). */
function job(sims: Simulator[], slugs: (string | null)[] | 'none' = 'none'): { config: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  const config = join(dir, 'spaces.toml');
  const tables = sims.map((sim, i) => {
    const slug = slugs === 'none' ? null : (slugs[i] ?? sim.space);
    return `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "SPACE_${i}_KEY"\n` + (slug !== null ? `slug = "${slug}"\n` : '');
  });
  writeFileSync(config, tables.join('\n'));
  const env: NodeJS.ProcessEnv = { CONVODUCK_CONFIG: config };
  sims.forEach((sim, i) => (env[`SPACE_${i}_KEY`] = sim.apiKey));
  return { config, env };
}

const TALLY = /^\d+ spaces?(: .*)?$/;

/** stdout's last block when it is the tally of the spaces (`3 spaces: 2 ready, 1 refused key`), else null. */
function tallyOf(r: CliResult): string | null {
  const last = r.stdout.trimEnd().split('\n\n').at(-1)!;
  return TALLY.test(last) ? last : null;
}

/** stdout's blocks but the tally: header line → the block's lines. */
function blocks(r: CliResult): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const block of r.stdout.trimEnd().split('\n\n')) {
    if (TALLY.test(block)) continue;
    const [header, ...lines] = block.split('\n');
    out.set(header!, lines);
  }
  return out;
}

interface JsonSpaces {
  syncWouldWork: boolean;
  outcome: string;
  exitCode: number;
  requests: number;
  spaces: { space: string; outcome: string; error: string | null; requests: number; findings: { status: string; name: string }[] }[];
}

describe('check --config: every space of the file', () => {
  it('each space under its slug; a revoked key is one line naming its space, exit 3; at most five requests a key', async () => {
    const sims = await threeSpaces([undefined, { revokeKeyAfter: 0 }]);
    const { config, env } = job(sims, [null, null, null]);
    const r = await runCli(['check'], env);
    expect(r.code, r.stderr + r.stdout).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `convoduck: space ${sims[1]!.space}: the API refused its key (401 unauthenticated): check environment variable SPACE_1_KEY (config ${config} line 8)`,
    ]);
    const shown = blocks(r);
    expect([...shown.keys()]).toEqual(sims.map((s) => `space ${s.space}`));
    expect(tallyOf(r)).toBe('3 spaces: 2 ready, 1 refused key');
    for (const i of [0, 2]) {
      const lines = shown.get(`space ${sims[i]!.space}`)!;
      expect(lines[0]).toBe(`ok    key accepted: space "${sims[i]!.space}" (GET /spaces)`);
      expect(lines.at(-1)).toMatch(new RegExp(`^→ a sync would work \\(about ${SIZES[i]! + Math.ceil(SIZES[i]! / 200)} requests: `));
    }
    expect(shown.get(`space ${sims[0]!.space}`)).toContain(`ok    last page adds up: page 2 has ${SIZES[0] - 200} items, as total says`);
    const refused = shown.get(`space ${sims[1]!.space}`)!;
    expect(refused[0]).toMatch(/^fail {2}key refused: GET \/api\/v1\/spaces: 401 unauthenticated/);
    expect(refused[0]).toMatch(/The API key was not accepted: check environment variable SPACE_1_KEY \(config .* line 8\)$/);
    expect(refused.at(-1)).toBe('→ a sync would not work as things are: see key above');
    expect(own(sims[1]!)).toHaveLength(1);
    for (const sim of sims) {
      expect(own(sim).length).toBeLessThanOrEqual(5);
      expect(r.stdout + r.stderr).not.toContain(sim.apiKey);
    }

    const before = sims.map((s) => own(s).length);
    const json = await runCli(['check', '--json'], env);
    expect(json.code, json.stderr + json.stdout).toBe(3);
    const out = JSON.parse(json.stdout) as JsonSpaces;
    expect(out).toMatchObject({ syncWouldWork: false, outcome: 'refused', exitCode: 3 });
    expect(out.spaces.map((s) => [s.space, s.outcome])).toEqual([
      [sims[0]!.space, 'works'],
      [sims[1]!.space, 'refused'],
      [sims[2]!.space, 'works'],
    ]);
    expect(out.spaces.map((s) => s.requests)).toEqual(sims.map((s, i) => own(s).length - before[i]!));
    expect(out.requests).toBe(out.spaces.reduce((n, s) => n + s.requests, 0));
    expect(out.spaces[1]!.error).toMatch(new RegExp(`^space ${sims[1]!.space}: the API refused its key \\(401 unauthenticated\\): check environment variable SPACE_1_KEY`));
    expect(out.spaces.filter((s) => s.error !== null)).toHaveLength(1);
    expect(out.spaces[0]!.findings.every((f) => f.status === 'ok')).toBe(true);
    for (const sim of sims) expect(json.stdout + json.stderr).not.toContain(sim.apiKey);

    // without a slug in the file, the refused space is named as the file names it
    const unnamed = job(sims);
    const label = await runCli(['check'], unnamed.env);
    expect(label.code, label.stderr + label.stdout).toBe(3);
    expect([...blocks(label).keys()]).toEqual([`space ${sims[0]!.space}`, '[[space]] #2 (line 5)', `space ${sims[2]!.space}`]);
    expect(label.stderr.trimEnd().split('\n')).toEqual([
      `convoduck: [[space]] #2 (line 5): the API refused its key (401 unauthenticated): check environment variable SPACE_1_KEY (config ${unnamed.config} line 7)`,
    ]);
  }, 300_000);

  it('the worst space decides: one whose check fails exits 1; a slug the key does not belong to is a failed finding', async () => {
    // a key whose budget is spent after one request (a short page is a count off sync trusts, not a failure)
    const sims = await threeSpaces([undefined, { conversations: 450, rateLimit: 1 }]);
    const r = await runCli(['check', '--json'], job(sims).env);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as JsonSpaces;
    expect(out).toMatchObject({ syncWouldWork: false, outcome: 'fails', exitCode: 1 });
    expect(out.spaces.map((s) => s.outcome)).toEqual(['works', 'fails', 'works']);
    expect(out.spaces[1]!.findings.find((f) => f.name === 'rate-limit')!.status).toBe('fail');

    const wrong = await runCli(['check'], job(sims.slice(0, 1), ['acme-prod']).env);
    expect(wrong.code, wrong.stderr + wrong.stdout).toBe(1);
    const mismatch = blocks(wrong).get(`space ${sims[0]!.space}`)!;
    expect(mismatch[0]).toBe(
      `fail  key accepted, but it belongs to space "${sims[0]!.space}", not "acme-prod" as the config says: fix the slug (or the key); a sync would stop before storing anything`,
    );
    expect(mismatch.at(-1)).toBe('→ a sync would not work as things are: see key above');
    // nothing is asked of a space the key does not belong to
    expect(own(sims[0]!).slice(-1).map((e) => e.kind)).toEqual(['spaces']);
  }, 300_000);

  it('--space checks only those spaces; an unknown slug is one line, exit 2', async () => {
    const sims = await threeSpaces();
    const named = job(sims, [null, null, null]);
    const unknown = await runCli(['check', '--space', 'nowhere'], named.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trimEnd().split('\n')).toEqual([`convoduck: no space "nowhere" in this job — known: ${sims.map((s) => s.space).sort().join(', ')}`]);
    for (const sim of sims) expect(own(sim)).toHaveLength(0);

    const two = await runCli(['check', '--space', sims[2]!.space, '--space', sims[0]!.space], named.env);
    expect(two.code, two.stderr + two.stdout).toBe(0);
    expect([...blocks(two).keys()]).toEqual([`space ${sims[0]!.space}`, `space ${sims[2]!.space}`]);
    expect(own(sims[1]!)).toHaveLength(0);

    // without slugs in the file each key is asked for its space (one request), and only the chosen one goes on
    const unnamed = job(sims);
    const asked = sims.map((s) => own(s).length);
    const one = await runCli(['check', '--space', sims[1]!.space], unnamed.env);
    expect(one.code, one.stderr + one.stdout).toBe(0);
    expect([...blocks(one).keys()]).toEqual([`space ${sims[1]!.space}`]);
    expect(own(sims[0]!).length - asked[0]!).toBe(1);
    expect(own(sims[2]!).length - asked[2]!).toBe(1);
    expect(own(sims[1]!).length - asked[1]!).toBeGreaterThan(1);
    const none = await runCli(['check', '--space', 'nowhere'], unnamed.env);
    expect(none.code).toBe(2);
    expect(none.stderr.trimEnd().split('\n')).toEqual([`convoduck: no space "nowhere" in this job — known: ${sims.map((s) => s.space).sort().join(', ')}`]);

    // a key refused before its space was named may be the one asked for: it is shown, not called unknown
    sims[1]!.setOptions({ revokeKeyAfter: 0 });
    const hidden = await runCli(['check', '--space', sims[1]!.space], unnamed.env);
    expect(hidden.code, hidden.stderr + hidden.stdout).toBe(3);
    expect([...blocks(hidden).keys()]).toEqual(['[[space]] #2 (line 5)']);
    expect(hidden.stderr).toMatch(/^convoduck: \[\[space\]\] #2 \(line 5\): the API refused its key/);
  }, 300_000);

  it('without a config file the output is one space’s as always; --space checks the key’s slug', async () => {
    const sim = await simulator({ seed: SEEDS[0], conversations: 60 });
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey };
    const plain = await runCli(['check'], env);
    expect(plain.code, plain.stderr + plain.stdout).toBe(0);
    expect(plain.stdout).toMatch(/^ok {4}key accepted/);
    const chosen = await runCli(['check', '--space', sim.space], env);
    expect(chosen.code, chosen.stderr + chosen.stdout).toBe(0);
    // the same lines, but for what the first check left of the key's budget
    const budgetless = (out: string) => out.split('\n').filter((l) => !l.startsWith('ok    rate limit:'));
    expect(budgetless(chosen.stdout)).toEqual(budgetless(plain.stdout));
    const other = await runCli(['check', '--space', 'acme-prod'], env);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr.trimEnd().split('\n')).toEqual([`convoduck: no space "acme-prod" in this job — known: ${sim.space}`]);
    const refused = await runCli(['check', '--space', sim.space], { ...env, CONVODUCK_API_KEY: 'np_wrong_key_for_this_space' });
    expect(refused.code).toBe(3);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^convoduck: GET \/api\/v1\/spaces: 401 unauthenticated/);
    const flags = await runCli(['check', '--base-url', sim.baseUrl], { ...job([sim]).env, SPACE_0_KEY: sim.apiKey });
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/^convoduck: --base-url and --api-key-file name one space/);
  }, 300_000);
});

describe('check --config: keys that cannot be used', () => {
  it('judges every space of the file, lists every bad key in one run and ends with a tally; sync ends with the same', async () => {
    const sim = await simulator({ seed: SEEDS[0], conversations: 40, rateLimit: 100_000 });
    const dir = tempDir();
    const config = join(dir, 'spaces.toml');
    const missing = join(dir, 'missing.key');
    const table = (key: string) => `[[space]]\nbase_url = "${sim.baseUrl}"\n${key}\n`;
    writeFileSync(
      config,
      [
        table('api_key_env = "GOOD_KEY"'),
        table('api_key_env = "WRONG_KEY"'),
        table('api_key_env = "UNSET_KEY"'),
        table(`api_key_file = "${missing}"`),
        table('api_key_env = "SPACED_KEY"'),
      ].join('\n'),
    );
    const env = { CONVODUCK_CONFIG: config, GOOD_KEY: sim.apiKey, WRONG_KEY: 'np_not_this_servers_key_1234', SPACED_KEY: 'two words' };
    const r = await runCli(['check'], env);
    expect(r.code, r.stderr + r.stdout).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `convoduck: [[space]] #2 (line 5): the API refused its key (401 unauthenticated): check environment variable WRONG_KEY (config ${config} line 7)`,
      `convoduck: config ${config} line 11: environment variable UNSET_KEY ([[space]] #3 (line 9)) is not set — export it with the space's API key (this space not checked; the others were)`,
      `convoduck: config ${config} line 15: cannot read the key file ${missing} of [[space]] #4 (line 13) (ENOENT) — make it readable, holding the key (this space not checked; the others were)`,
      `convoduck: config ${config} line 19: environment variable SPACED_KEY holds something that is not an API key (one line, no spaces): check it (this space not checked; the others were)`,
    ]);
    const shown = r.stdout.trimEnd().split('\n\n');
    expect(shown.map((b) => b.split('\n')[0])).toEqual([`space ${sim.space}`, '[[space]] #2 (line 5)', '[[space]] #3 (line 9)', '[[space]] #4 (line 13)', '[[space]] #5 (line 17)', shown.at(-1)]);
    expect(shown[0]!.split('\n').at(-1)).toMatch(/^→ a sync would work/);
    expect(shown[2]!.split('\n').slice(1)).toEqual([
      `fail  key not read: config ${config} line 11: environment variable UNSET_KEY ([[space]] #3 (line 9)) is not set — export it with the space's API key`,
      '→ a sync would not work as things are: see key above',
    ]);
    expect(shown.at(-1)).toBe('5 spaces: 1 ready, 1 refused key, 1 unset variable, 1 unreadable key file, 1 malformed key');

    const json = await runCli(['check', '--json'], env);
    expect(json.code, json.stderr).toBe(3);
    const out = JSON.parse(json.stdout) as JsonSpaces & { tally: Record<string, number> };
    expect(out.tally).toEqual({ spaces: 5, ready: 1, refusedKey: 1, unsetVariable: 1, unreadableKeyFile: 1, notAKey: 1 });
    expect(out.spaces.map((x) => x.outcome)).toEqual(['works', 'refused', 'unreadable-key', 'unreadable-key', 'unreadable-key']);
    expect(out.spaces.filter((x) => x.error !== null)).toHaveLength(4);

    // sync over the same file: the same kind of tally, last
    const sync = await runCli(['sync'], { ...env, CONVODUCK_DB: join(dir, 'spaces.duckdb') });
    expect(sync.code, sync.stderr).toBe(3);
    expect(sync.stderr.trimEnd().split('\n').at(-1)).toBe('5 spaces: 1 synced, 1 refused key, 1 unset variable, 1 unreadable key file, 1 malformed key');
    for (const text of [r.stdout, r.stderr, json.stdout, sync.stderr]) expect(text).not.toContain(sim.apiKey);
  }, 120_000);
});

describe('check’s estimate and max_rpm', () => {
  it('estimates the sync at the space’s max_rpm, or --max-rpm, when it is below the key’s limit', async () => {
    const [capped, free] = await threeSpaces();
    const { config, env } = job([capped!, free!], 'none');
    writeFileSync(config, readFileSync(config, 'utf8').replace('api_key_env = "SPACE_0_KEY"\n', 'api_key_env = "SPACE_0_KEY"\nmax_rpm = 30\n'));
    const r = await runCli(['check'], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const shown = blocks(r);
    const requests = (i: number) => SIZES[i]! + Math.ceil(SIZES[i]! / 200);
    // 262 requests at 30 a minute: about 9 minutes, not the 4 of the key's 60
    expect(shown.get(`space ${capped!.space}`)!.at(-1)).toBe(
      `→ a sync would work (about ${requests(0)} requests: 2 list pages + ${SIZES[0]} details; at 30/min (max_rpm) ≈ ${Math.round(requests(0) / 30)} min)`,
    );
    expect(shown.get(`space ${free!.space}`)!.at(-1)).toBe(
      `→ a sync would work (about ${requests(1)} requests: 1 list page + ${SIZES[1]} details; at 60/min ≈ ${Math.round(requests(1) / 60)} min)`,
    );

    // one space from the environment, --max-rpm as sync takes it
    const one = await runCli(['check', '--max-rpm', '20'], { CONVODUCK_BASE_URL: free!.baseUrl, CONVODUCK_API_KEY: free!.apiKey });
    expect(one.code, one.stderr + one.stdout).toBe(0);
    expect(one.stdout.trimEnd().split('\n').at(-1)).toBe(
      `→ a sync would work (about ${requests(1)} requests: 1 list page + ${SIZES[1]} details; at 20/min (max_rpm) ≈ ${Math.round(requests(1) / 20)} min)`,
    );
  });
});
