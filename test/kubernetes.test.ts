// docs/kubernetes.md as users apply it: its manifests read with a YAML parser, every `convoduck`
// command line in them run by the built CLI, and the sync CronJob's Indexed Job played on this
// machine: N pods at once, each a shell running the container's script with JOB_COMPLETION_INDEX
// set, the volumes mapped to folders, over 3 × N simulated spaces (real HTTP, shrunk rate windows);
// one pod killed outright mid-run and started again with the same index, as the Job controller
// does; then the report CronJob's script, whose reports must equal byte for byte those of one
// process that synced the same spaces into one file.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shardOf } from '../src/shared/shards.js';
import { generateDataset, type Simulator } from '../src/simulator/index.js';
import { spaceDbPath } from '../src/store/space-files.js';
import { CLI, runCli } from './support/cli.js';
import { place, recipe } from './support/doc-recipes.js';
import { withDuck } from './support/in-memory-duck.js';
import {
  commandLines,
  containerOf,
  DOC,
  killPod,
  manifest,
  manifestEnv,
  mapPaths,
  startPod,
  type CronJob,
  type JobSpec,
  type PodRun,
} from './support/k8s-manifests.js';
import { scratch } from './support/scratch.js';
import { alertmanagerShape, startWebhookReceiver } from './support/webhook-receiver.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDir } = scratch('kubernetes');
/** The shrunk rate window and each key's limit in it. */
const W = 2_000;
const LIMIT = 20;
const CONVERSATIONS = 40;
const HOST = 'https://<your-host>/api/v1';

const sync = (): CronJob => manifest<CronJob>('k8s-sync');
const reports = (): CronJob => manifest<CronJob>('k8s-reports');

/** The shard count the sync manifest runs: completions, parallelism and every --shard-count agree. */
function shardCount(job: JobSpec): number {
  const n = job.completions!;
  const counts = [...containerOf(job).script.matchAll(/--shard-count (\d+)/g)].map((m) => Number(m[1]));
  expect(counts.length, 'every command of the pod names the shard count').toBeGreaterThan(0);
  expect(new Set([n, job.parallelism, ...counts])).toEqual(new Set([n]));
  return n;
}

/** `perShard` slugs for each of `n` shards, as the rendezvous hash assigns them. */
function slugsByShard(n: number, perShard: number): string[][] {
  const shards: string[][] = Array.from({ length: n }, () => []);
  for (let i = 1; shards.some((s) => s.length < perShard); i++) {
    const slug = `tenant-${String(i).padStart(2, '0')}`;
    const s = shards[shardOf(slug, n)]!;
    if (s.length < perShard) s.push(slug);
  }
  return shards;
}

/** The folders the pod's mounts are mapped to, the installed `convoduck`, and the config and keys of `sims`. */
function cluster(sims: Simulator[]): { root: string; folders: Record<string, string>; env: Record<string, string>; config: string } {
  const root = tempDir();
  const pod = containerOf(sync().spec.jobTemplate.spec);
  const folders: Record<string, string> = {};
  for (const m of pod.volumeMounts) {
    folders[m.mountPath] = join(root, 'volumes', m.name);
    mkdirSync(folders[m.mountPath]!, { recursive: true });
  }
  const bin = join(root, 'bin');
  mkdirSync(bin);
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(bin, 'convoduck'));
  // the config Secret: one [[space]] per simulator, written as the doc's first space is
  const first = recipe(DOC, 'k8s-config').split('[[space]]')[1]!;
  const text = sims.map((sim) => `[[space]]${place(first, { [HOST]: sim.baseUrl, 'acme-prod': sim.space })}`).join('\n');
  const config = mapPaths('/etc/convoduck/config/spaces.toml', folders);
  writeFileSync(config, mapPaths(text, folders));
  cpSync(fileURLToPath(new URL('../docs/alerts.example.toml', import.meta.url)), mapPaths('/etc/convoduck/config/alerts.toml', folders));
  // the keys Secret: a file per space, named as the config names it
  for (const sim of sims) writeFileSync(mapPaths(`/etc/convoduck/keys/${sim.space}`, folders), `${sim.apiKey}\n`, { mode: 0o400 });
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: root,
    NO_COLOR: '1',
    CONVODUCK_RATE_WINDOW_MS: String(W),
    ...manifestEnv(pod),
  };
  return { root, folders, env, config };
}

const KEYS: Record<string, string> = {
  conversations: `id, space, agent_id, outcome, epoch_ms(started_at), duration_sec, message_count`,
  transcript_turns: `conversation_id, seq, epoch_ms(spoken_at), speaker, text, node_key`,
  tool_calls: `conversation_id, seq, tool_id, status, input_redacted::VARCHAR`,
  node_visits: `conversation_id, seq, node_key`,
  agents: `id, space, name, status`,
};

/** Per table, every row's key columns as text, sorted: from the lake's Parquet, or from the space files. */
async function rowsOf(source: { lake: string } | { files: string[] }): Promise<Record<string, string[]>> {
  return withDuck(async (sql) => {
    for (const t of Object.keys(KEYS)) {
      if ('lake' in source) {
        await sql(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${join(source.lake, t)}/**/*.parquet', hive_partitioning = true)`);
      } else {
        if (t === Object.keys(KEYS)[0]) for (const [i, f] of source.files.entries()) await sql(`ATTACH '${f}' AS s${i} (READ_ONLY)`);
        await sql(`CREATE VIEW ${t} AS ${source.files.map((_, i) => `SELECT * FROM s${i}.${t}`).join(' UNION ALL ')}`);
      }
    }
    const out: Record<string, string[]> = {};
    for (const [t, k] of Object.entries(KEYS)) out[t] = (await sql(`SELECT concat_ws('|', ${k}) AS k FROM ${t} ORDER BY k`)).map((r) => String(r.k));
    return out;
  });
}

/** Each space's sync runs: when each started and ended (a run killed outright never ends: null). */
async function runsOf(file: string): Promise<{ started: number; ended: number | null; status: string }[]> {
  return withDuck(async (sql) => {
    await sql(`ATTACH '${file}' AS s (READ_ONLY)`);
    const rows = await sql(`SELECT epoch_ms(started_at) AS started, epoch_ms(ended_at) AS ended, status FROM s.sync_runs ORDER BY started_at`);
    return rows.map((r) => ({ started: Number(r.started), ended: r.ended === null ? null : Number(r.ended), status: String(r.status) }));
  });
}

describe('docs/kubernetes.md: the manifests as written', () => {
  it('a CronJob of an Indexed Job, keys from mounted Secrets, one ReadWriteMany volume, and the report CronJob over the lake', () => {
    const cron = sync();
    expect(cron.kind).toBe('CronJob');
    expect(cron.spec.concurrencyPolicy).toBe('Forbid');
    const job = cron.spec.jobTemplate.spec;
    expect(job.completionMode).toBe('Indexed');
    expect(shardCount(job)).toBeGreaterThan(1);
    expect(job.template.spec.restartPolicy).toBe('Never');
    expect(job.backoffLimitPerIndex ?? job.backoffLimit).toBeGreaterThan(0);
    const rules = job.podFailurePolicy!.rules;
    // bad settings and a refused key are never retried; the other shards finish
    expect(rules.find((r) => r.onExitCodes?.values.includes(2))?.action).toBe('FailIndex');
    expect(rules.find((r) => r.onExitCodes?.values.includes(3))?.action).toBe('FailIndex');
    for (const r of rules) if (r.onExitCodes) expect(r.onExitCodes.containerName).toBe(containerOf(job).name);

    // keys: a Secret mounted as files, named by the config's api_key_file; no key in an env value
    const pod = containerOf(job);
    const keysMount = pod.volumeMounts.find((m) => m.name === 'keys')!;
    expect(job.template.spec.volumes.find((v) => v.name === 'keys')?.secret?.secretName).toBe('convoduck-keys');
    const keyFiles = [...recipe(DOC, 'k8s-config').matchAll(/api_key_file = "([^"]+)"/g)].map((m) => m[1]!);
    expect(keyFiles.length).toBeGreaterThan(0);
    for (const f of keyFiles) expect(f.startsWith(`${keysMount.mountPath}/`), f).toBe(true);
    expect(recipe(DOC, 'k8s-config')).not.toMatch(/api_key\s*=|api_key_env/);
    for (const e of pod.env ?? []) expect(e.name).not.toMatch(/KEY|TOKEN|SECRET/);

    // one volume every pod of both CronJobs mounts, ReadWriteMany
    const pvc = manifest<{ kind: string; metadata: { name: string }; spec: { accessModes: string[] } }>('k8s-volume');
    expect(pvc.kind).toBe('PersistentVolumeClaim');
    expect(pvc.spec.accessModes).toContain('ReadWriteMany');
    for (const c of [cron, reports()]) {
      expect(c.spec.jobTemplate.spec.template.spec.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(pvc.metadata.name);
    }
    const rep = reports();
    expect(rep.kind).toBe('CronJob');
    expect(rep.spec.concurrencyPolicy).toBe('Forbid');
    const lines = commandLines(containerOf(rep.spec.jobTemplate.spec).script);
    expect(lines.some((l) => /^convoduck report (?!.*--html).*--lake /.test(l))).toBe(true);
    expect(lines.some((l) => /^convoduck report .*--html.*--lake /.test(l))).toBe(true);
  });

  it('the report CronJob reads the alert webhook from a Secret created beside the others; Secret files are 0440 read as kubectl reads YAML', () => {
    const secretsRecipe = recipe(DOC, 'k8s-secrets');
    const created = new Map([...secretsRecipe.matchAll(/kubectl create secret generic (\S+)((?:\s+\\?\s*--from-file=\S+)+)/g)].map((m) => [m[1]!, [...m[2]!.matchAll(/--from-file=([^=\s]+)/g)].map((f) => f[1]!)]));
    const rep = reports().spec.jobTemplate.spec;
    const pod = containerOf(rep);
    expect(commandLines(pod.script).some((l) => /^convoduck alert /.test(l))).toBe(true);
    const file = manifestEnv(pod).CONVODUCK_ALERT_WEBHOOK_URL_FILE;
    expect(file, 'the report pod names the webhook URL file').toBeDefined();
    const mount = pod.volumeMounts.find((m) => file!.startsWith(`${m.mountPath}/`));
    expect(mount, `a volume is mounted where ${file} is`).toBeDefined();
    expect(mount!.readOnly).toBe(true);
    const volume = rep.template.spec.volumes.find((v) => v.name === mount!.name)!;
    const secret = volume.secret!.secretName;
    expect(created.get(secret), `kubectl create secret generic ${secret} in the k8s-secrets recipe`).toContain(file!.slice(mount!.mountPath.length + 1));
    // the URL is only ever a file of a Secret: never a literal value in the manifest
    expect(manifestEnv(pod).CONVODUCK_ALERT_WEBHOOK_URL).toBeUndefined();
    // every Secret the pods mount is created by the recipe, and the files of a Secret with a mode are 0440 (octal)
    const volumes = [sync(), reports()].flatMap((c) => c.spec.jobTemplate.spec.template.spec.volumes);
    const withMode = volumes.filter((v) => v.secret?.defaultMode !== undefined);
    expect(withMode.map((v) => v.name).sort()).toEqual(['keys', 'webhook']);
    for (const v of withMode) expect(v.secret!.defaultMode, v.name).toBe(0o440);
    for (const v of volumes) if (v.secret) expect([...created.keys()], v.secret.secretName).toContain(v.secret.secretName);
  });

  it('every convoduck command line of the manifests parses with the built CLI', async () => {
    // Run in an empty sandbox: whatever else it says (no config, no lake yet), a command line that
    // does not parse says so with its --help hint, which no other refusal carries.
    const sandbox = tempDir();
    const pods = [sync(), reports()].map((c) => containerOf(c.spec.jobTemplate.spec));
    const folders = Object.fromEntries(pods.flatMap((p) => p.volumeMounts).map((m) => [m.mountPath, join(sandbox, m.name)]));
    for (const dir of Object.values(folders)) mkdirSync(dir, { recursive: true });
    // the same per-shard script for other schedulers (docs/scale-out.md), its shard given as $SHARD
    const elsewhere = recipe('docs/scale-out.md', 'scale-out-shard').replaceAll('"$SHARD"', '0');
    for (const path of ['/etc/convoduck/spaces.toml', '/mnt/convoduck']) folders[path] = join(sandbox, path.replaceAll('/', '_'));
    const lines = [...pods.flatMap((p) => commandLines(p.script)), ...commandLines(elsewhere)];
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const line of lines) {
      expect(line, 'a plain command line: no quoting to interpret').not.toMatch(/["'$`\\]/);
      const args = mapPaths(line, folders).split(/\s+/).slice(1);
      const run = await runCli(args, { JOB_COMPLETION_INDEX: '0', HOME: sandbox }, sandbox);
      expect(run.stderr, line).not.toMatch(/see convoduck [a-z ]+--help|unknown option|unknown command/);
      expect(run.signal, line).toBeNull();
    }
  });
});

describe('docs/kubernetes.md: the Indexed Job played on this machine', () => {
  it('N pods at once over 3 × N spaces (two of one index), one killed mid-run and replaced: every space exact in the lake, never two syncs of one space at once, reports over the lake equal to one database’s', async () => {
    const cron = sync();
    const job = cron.spec.jobTemplate.spec;
    const n = shardCount(job);
    const shards = slugsByShard(n, 3);
    const now = new Date();
    const sims = await Promise.all(
      shards.flat().map((slug, i) =>
        simulator({ seed: 3800 + i, dataset: generateDataset({ seed: 3800 + i, conversations: CONVERSATIONS, now, spaceSlug: slug }), rateLimit: LIMIT, windowMs: W }),
      ),
    );
    const { root, folders, env, config } = cluster(sims);
    const pod = containerOf(job);
    const script = mapPaths(pod.script, folders);
    const dbDir = mapPaths('/data/spaces', folders);
    const lake = mapPaths('/data/lake', folders);
    expect(script, 'the pod syncs into /data/spaces and exports into /data/lake').toContain(`--db-dir ${dbDir} `);
    expect(script).toContain(`--out ${lake} `);

    // The Job controller: every index at once; the victim's pod killed outright once its spaces
    // have served some details, and replaced by a pod with the same index.
    const victim = 1;
    const details = (slugs: string[]): number =>
      sims.filter((s) => slugs.includes(s.space)).reduce((sum, s) => sum + s.requestLog.filter((r) => r.kind === 'conversation_detail' && r.status === 200).length, 0);
    const start = (index: number) => startPod(script, { ...env, JOB_COMPLETION_INDEX: String(index) }, root);
    const pods = Array.from({ length: n }, (_, i) => start(i));
    // Two pods of one index at once, as the Job controller may start (a replaced pod overlapping a
    // predecessor that still runs): the space lock must give each space to one of them.
    const twin = n - 1;
    pods.push(start(twin));
    const victimTotal = 3 * CONVERSATIONS;
    let exited: Awaited<PodRun['done']> | null = null;
    void pods[victim]!.done.then((r) => (exited = r));
    while (details(shards[victim]!) < victimTotal / 4 && exited === null) await new Promise((r) => setTimeout(r, 20));
    expect(exited, 'the victim was still running').toBeNull();
    await killPod(pods[victim]!);
    const killed = await pods[victim]!.done;
    const killedAt = Date.now();
    expect(killed.signal, 'the victim was killed mid-run').toBe('SIGKILL');
    expect(details(shards[victim]!), 'the victim had details left to fetch').toBeLessThan(victimTotal);
    pods[victim] = start(victim);
    const results = await Promise.all(pods.map((p) => p.done));
    results.forEach((r, i) => expect(r.code, `pod ${i}: ${r.stderr.split('\n').slice(-12).join('\n')}`).toBe(0));
    // every space of the twin index synced by one of its two pods, left to the other
    const skipped = results.slice(-2).flatMap((r) => (/another convoduck sync .* is already writing/.test(r.stderr) ? [r] : []));
    expect(skipped.length, 'one pod of the twin index met the other\'s lock').toBeGreaterThan(0);

    // every space complete and exact: its file against the simulator's truth, the lake against the files
    const files = sims.map((s) => spaceDbPath(dbDir, s.space));
    for (const sim of sims) {
      const truth = { conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) };
      await expectStoreMatches(spaceDbPath(dbDir, sim.space), truth, { space: sim.space }).catch((err: Error) => {
        const shard = shards.findIndex((s) => s.includes(sim.space));
        throw new Error(`${sim.space} (shard ${shard}): ${err.message}\n${results.map((r, i) => `pod ${i}: ${r.stderr.trim().split('\n').slice(-8).join('\n')}`).join('\n')}`);
      });
    }
    const inLake = await rowsOf({ lake });
    const inFiles = await rowsOf({ files });
    for (const t of Object.keys(KEYS)) {
      expect(inLake[t]!.length, t).toBeGreaterThan(0);
      expect(inLake[t], t).toEqual(inFiles[t]);
    }
    expect(readdirSync(join(lake, 'conversations')).sort()).toEqual(sims.map((s) => `space=${s.space}`).sort());

    // never two syncs of one space at once: each space's runs, in its own file, one after another
    for (const sim of sims) {
      const runs = await runsOf(spaceDbPath(dbDir, sim.space));
      expect(runs.length, sim.space).toBeGreaterThan(0);
      for (let i = 1; i < runs.length; i++) {
        const before = runs[i - 1]!;
        expect(before.ended ?? killedAt, `${sim.space}: run ${i} started before run ${i - 1} ended`).toBeLessThanOrEqual(runs[i]!.started);
      }
      expect(runs.at(-1)!.status, sim.space).toBe('ok');
    }
    // each key within its own budget: the restarted pod took over what its predecessor had spent.
    // Two processes on one key see about half their requests refused, and a restarted pod that
    // ignored its predecessor's sends a window's worth; a loaded machine delays a few sends past
    // the server's window edge, so a few 429s are the machine, not a bug.
    for (const sim of sims) {
      const own = sim.requestLog.filter((r) => r.client === 'key');
      const refused = own.filter((r) => r.status === 429).map((r) => r.t - killedAt);
      expect(refused.length, `${sim.space}: 429s at ${refused.join(', ')} ms from the kill, of ${own.length} requests`).toBeLessThanOrEqual(Math.max(3, own.length / 5));
    }

    // the report CronJob, then the same reports from one process that syncs the same spaces into one file
    // its Secrets as the k8s-secrets recipe creates them: the webhook's URL a loopback receiver's,
    // and a rule that fires on every space (none has a conversation since the hour began)
    const rep = containerOf(reports().spec.jobTemplate.spec);
    for (const m of rep.volumeMounts) {
      folders[m.mountPath] ??= join(root, 'volumes', m.name);
      mkdirSync(folders[m.mountPath]!, { recursive: true });
    }
    const receiver = await startWebhookReceiver('k8s-hook-token', 'up', alertmanagerShape);
    let repRun: Awaited<ReturnType<typeof startPod>['done']>;
    try {
      writeFileSync(mapPaths('/etc/convoduck/webhook/url', folders), `${receiver.url}\n`);
      const alerts = mapPaths('/etc/convoduck/config/alerts.toml', folders);
      writeFileSync(alerts, `${readFileSync(alerts, 'utf8')}\n[[rule]]\nname = "quiet-since-the-hour"\nkind = "freshness"\nof = "conversations"\nperiod = "hour"\nwarn_hours = 0\nusual_min = 0\n`);
      const repEnv = Object.fromEntries(Object.entries(manifestEnv(rep)).map(([k, v]) => [k, mapPaths(v, folders)]));
      repRun = await startPod(mapPaths(rep.script, folders), { ...env, ...repEnv }, root).done;
    } finally {
      await receiver.close();
    }
    expect(repRun.code, repRun.stderr).toBe(0);
    expect(receiver.refused).toEqual([]);
    const posted = receiver.accepted.filter((b) => b.alerts[0]!.labels.alertname === 'quiet-since-the-hour');
    expect(posted.map((b) => b.alerts[0]!.labels.space).sort(), 'one firing post per space file, to the URL of the Secret').toEqual(sims.map((s) => s.space).sort());
    const out = mapPaths('/data/reports', folders);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    const one = join(root, 'one.duckdb');
    const oneSync = await runCli(['sync', '--config', config, '--db', one], env, root);
    expect(oneSync.code, oneSync.stderr).toBe(0);
    const ref = join(root, 'one-reports');
    const oneReport = await runCli(['report', '--db', one, '--out', ref], env, root);
    expect(oneReport.code, oneReport.stderr).toBe(0);
    const csvs = readdirSync(ref).filter((f) => f.endsWith('.csv')).sort();
    expect(csvs.length).toBeGreaterThan(10);
    expect(readdirSync(out).filter((f) => f.endsWith('.csv')).sort()).toEqual(csvs);
    // Byte for byte, but for when the last sync ended: the one process synced after the pods did.
    // Over the lake that cell is the pods' latest run's end, read from the space files.
    const lastEnd = (text: string): { text: string; value: string } => {
      const [head, row, ...rest] = text.split('\n');
      const cells = row!.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''));
      const at = head!.split(',').indexOf('last_sync_ended_at');
      expect(at, 'summary has last_sync_ended_at').toBeGreaterThanOrEqual(0);
      const value = cells[at]!;
      cells[at] = '(when the last sync ended)';
      return { text: [head, cells.join(','), ...rest].join('\n'), value };
    };
    for (const f of csvs) {
      const [lakeText, oneText] = [readFileSync(join(out, f), 'utf8'), readFileSync(join(ref, f), 'utf8')];
      if (f !== 'summary.csv') {
        expect(lakeText, f).toBe(oneText);
        continue;
      }
      expect(lastEnd(lakeText).text, f).toBe(lastEnd(oneText).text);
      const podsEnded = Math.max(...(await Promise.all(files.map(runsOf))).flat().map((r) => r.ended ?? 0));
      expect(lastEnd(lakeText).value).toBe(new Date(podsEnded).toISOString().replace('.000Z', 'Z'));
    }
  }, 300_000);
});
