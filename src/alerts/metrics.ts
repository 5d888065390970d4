// The job's own health for Prometheus: node_exporter's textfile collector reads `*.prom` files in
// the text exposition format, so the file is written whole beside its target and renamed into
// place (a scrape never reads half a file). Every figure is read from the database's own rows.

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Database } from '../store/database.js';
import { withReadOnlyDatabase } from '../store/read-only.js';

interface Metric {
  name: string;
  help: string;
  /** a gauge unless said otherwise */
  type?: 'counter';
  samples: { labels: Record<string, string>; value: number }[];
}

/** Reads the figures and writes them to `path`, whole. */
export async function writeMetricsFile(dbPath: string, path: string, now: Date, lockTimeoutMs?: number): Promise<void> {
  await writeMetricsFileOf([dbPath], path, now, lockTimeoutMs);
}

/** The same over several databases (one file per space): their spaces' samples together, alerts summed. */
export async function writeMetricsFileOf(dbPaths: readonly string[], path: string, now: Date, lockTimeoutMs?: number): Promise<void> {
  const each: Metric[][] = [];
  for (const dbPath of dbPaths) each.push(await withReadOnlyDatabase(dbPath, { lockTimeoutMs }, (db) => readMetrics(db, now)));
  const metrics = mergeMetrics(each);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, renderMetrics(metrics));
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

const RUN_COUNTERS: [column: string, name: string, help: string][] = [
  ['requests', 'requests', 'requests the latest finished sync run of the space sent'],
  ['throttled', 'throttled', 'of them, answered 429'],
  ['retries', 'retries', 'requests the run sent again'],
  ['details_set_aside', 'set_aside', 'details the run set aside (kept raw, not storable as rows)'],
  ['conversations_deleted', 'deleted', 'conversations the run found deleted at the source'],
  ['errors', 'errors', 'errors the run recorded'],
];

export async function readMetrics(db: Database, now: Date): Promise<Metric[]> {
  const success = await db.all(
    `SELECT space, epoch(ended_at) AS ended, epoch(ended_at) - epoch(started_at) AS duration
     FROM sync_runs WHERE space IS NOT NULL AND status = 'ok' AND ended_at IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY ended_at DESC, run_id DESC) = 1 ORDER BY space`,
  );
  const latest = await db.all(
    `SELECT space, epoch(ended_at) AS ended, clock_skew_seconds, ${RUN_COUNTERS.map(([c]) => `coalesce(${c}, 0) AS ${c}`).join(', ')}
     FROM sync_runs WHERE space IS NOT NULL AND status <> 'running' AND ended_at IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1 ORDER BY space`,
  );
  // counted as `status` counts stored details: listed, with a usable detail
  const stored = await db.all(
    `SELECT l.space, count(*) FILTER (WHERE d.id IS NOT NULL AND d.invalid_reason IS NULL)::BIGINT AS stored
     FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id) WHERE l.space IS NOT NULL GROUP BY l.space ORDER BY l.space`,
  );
  // the restore happens as the run starts (store/restore-last-good.ts): its time is the run's start
  const restores = await db.all(
    `SELECT space, count(restored_from_copy_at)::BIGINT AS restores, epoch(max(started_at) FILTER (WHERE restored_from_copy_at IS NOT NULL)) AS latest
     FROM sync_runs WHERE space IS NOT NULL GROUP BY space ORDER BY space`,
  );
  const firing = await db.all(`SELECT level, count(*)::INTEGER AS n FROM alert_states WHERE resolved_at IS NULL GROUP BY level`);
  const per = (rows: Record<string, unknown>[], column: string) => rows.map((r) => ({ labels: { space: String(r.space) }, value: Number(r[column]) }));
  return [
    { name: 'convoduck_last_success_timestamp_seconds', help: 'when the latest sync run of the space with status ok ended (Unix time)', samples: per(success, 'ended') },
    { name: 'convoduck_last_success_duration_seconds', help: 'how long that run took', samples: per(success, 'duration') },
    { name: 'convoduck_last_run_timestamp_seconds', help: 'when the latest finished sync run of the space ended, whatever its status', samples: per(latest, 'ended') },
    ...RUN_COUNTERS.map(([column, name, help]) => ({ name: `convoduck_last_run_${name}`, help, samples: per(latest, column) })),
    {
      name: 'convoduck_last_run_clock_skew_seconds',
      help: "how far the server's clock (its Date header) ran ahead of this machine's in that run; negative when behind",
      // a run without a Date header measured nothing: no sample rather than a made-up zero
      samples: per(latest.filter((r) => r.clock_skew_seconds !== null), 'clock_skew_seconds'),
    },
    {
      name: 'convoduck_last_restore_timestamp_seconds',
      help: 'when the latest sync run of the space that found its file damaged and put the last-good copy in its place started (Unix time)',
      // never restored: no sample rather than a made-up time
      samples: per(restores.filter((r) => r.latest !== null), 'latest'),
    },
    { name: 'convoduck_restores_total', type: 'counter', help: 'sync runs of the space recorded in the file that put the last-good copy in place of a damaged file', samples: per(restores, 'restores') },
    { name: 'convoduck_conversations_stored', help: 'conversations of the space with a stored detail', samples: per(stored, 'stored') },
    {
      name: 'convoduck_alerts_firing',
      help: 'alerts firing after the latest alert run, by severity',
      samples: ['warn', 'error'].map((level) => ({ labels: { severity: level }, value: Number(firing.find((f) => f.level === level)?.n ?? 0) })),
    },
    { name: 'convoduck_metrics_written_timestamp_seconds', help: 'when this file was written', samples: [{ labels: {}, value: now.getTime() / 1000 }] },
  ];
}

/** Per-space samples side by side; a sample without a space label (alerts, the time written) summed or taken once. */
function mergeMetrics(each: Metric[][]): Metric[] {
  if (each.length === 1) return each[0]!;
  return each[0]!.map((first, i) => {
    const samples = each.flatMap((m) => m[i]!.samples);
    if (first.samples.every((s) => 'space' in s.labels)) return { ...first, samples: samples.sort((a, b) => a.labels.space!.localeCompare(b.labels.space!)) };
    if (first.name === 'convoduck_metrics_written_timestamp_seconds') return first;
    return { ...first, samples: first.samples.map((s, j) => ({ ...s, value: each.reduce((sum, m) => sum + m[i]!.samples[j]!.value, 0) })) };
  });
}

export function renderMetrics(metrics: readonly Metric[]): string {
  let text = '';
  for (const m of metrics) {
    text += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type ?? 'gauge'}\n`;
    for (const s of m.samples) {
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`);
      text += `${m.name}${labels.length ? `{${labels.join(',')}}` : ''} ${Number.isFinite(s.value) ? s.value : 'NaN'}\n`;
    }
  }
  return text;
}
