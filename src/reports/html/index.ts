// `report --html`: one self-contained page built from the same SQL reports the CSVs come from.
// The reports are read once for the period (and `summary` once more for the period before), the
// charts drawn from their rows, and the page written to a temporary name and renamed.

import { accessSync, constants, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../../shared/errors.js';
import { createOutputDir } from '../../shared/output-dir.js';
import type { ReportFilters } from '../../filters/params.js';
import { withReportReader, type ReportReaderOptions, type ReportRows } from '../rows.js';
import {
  MAX_AGENTS,
  abandonmentValues,
  durationValues,
  endingValues,
  responseTimeValues,
  toolFailureValues,
  topAgents,
  trendValues,
  volumeValues,
  weekdayHourValues,
} from './chart-data.js';
import { renderChart } from './charts.js';
import { num, tiles } from './kpis.js';
import { pageNames } from './names.js';
import { renderPage } from './page.js';
import { partialBuckets, periodBuckets, period as periodOf } from './period.js';

export const PAGE_FILE = 'report.html';

/** The reports the page is built from. */
export const PAGE_REPORTS = [
  'summary',
  'coverage',
  'outcomes',
  'containment_trend',
  'transfer_nodes',
  'drop_off',
  'tool_failures',
  'tool_failure_log',
  'agent_leaderboard',
  'hourly_volume',
  'duration_histogram',
  'abandonment',
  'response_times',
  'handoff_precursors',
] as const;

/** The page's reports whose rows are each one agent's (by space and agent_id), and one tool's (by space and slug). */
const AGENT_REPORTS = [
  'outcomes',
  'containment_trend',
  'transfer_nodes',
  'drop_off',
  'tool_failure_log',
  'agent_leaderboard',
  'abandonment',
  'response_times',
  'handoff_precursors',
] as const satisfies readonly (typeof PAGE_REPORTS)[number][];
const TOOL_REPORTS = ['tool_failures', 'tool_failure_log'] as const satisfies readonly (typeof PAGE_REPORTS)[number][];

export interface HtmlReportOptions extends ReportReaderOptions {
  /** folder the page goes to (created if missing) */
  outDir: string;
  filters?: ReportFilters;
  /** the end of a period without --until, and what relative --since values were resolved against */
  now?: Date;
  /** where the chart specs are; default the package's sql/charts/ */
  chartDir?: string;
  /** --with-text: free text (the failed calls' tool outputs) on the page; none by default */
  withText?: boolean;
}

export interface HtmlReportResult {
  path: string;
  conversations: number;
  bytes: number;
}

export async function writeHtmlReport(options: HtmlReportOptions): Promise<HtmlReportResult> {
  const now = options.now ?? new Date();
  const filters = options.filters ?? {};
  const path = join(options.outDir, PAGE_FILE);
  createOutputDir(options.outDir);
  try {
    accessSync(options.outDir, constants.W_OK);
  } catch (err) {
    throw unwritable(path, err);
  }

  const read = await withReportReader(options, async (reader) => {
    const params = await reader.resolve(filters);
    const tables = await reader.read(params, PAGE_REPORTS);
    const summary = tables.get('summary')!.rows[0]!;
    const first = typeof summary.first_started_at === 'string' ? summary.first_started_at : null;
    const period = periodOf(filters, params, first, now);
    let previous = null;
    if (period.previous) {
      const before = await reader.read(await reader.resolve(period.previous), ['summary']);
      previous = before.get('summary')!.rows[0]!;
    }
    const spaces = filters.spaces ?? [];
    const firing = (await reader.firingAlerts()).filter((a) => spaces.length === 0 || spaces.includes(a.labels.space ?? ''));
    return { params, tables, summary, period, previous, firing };
  });

  const { tables, summary, period, params } = read;
  const t = (name: (typeof PAGE_REPORTS)[number]): ReportRows => tables.get(name)!;
  const names = pageNames(AGENT_REPORTS.map(t), TOOL_REPORTS.map(t));
  const agents = topAgents(t('agent_leaderboard'), names);
  const agentCount = t('agent_leaderboard').rows.length;
  const agentNote = agentCount > MAX_AGENTS ? `Shows the ${MAX_AGENTS} agents with most conversations, of ${agentCount}.` : undefined;
  const vars = {
    bucket: period.bucket,
    bucket_title: period.bucket === 'week' ? 'week (from Monday)' : 'day',
    tz: period.tz,
  };
  const conversations = num(summary.conversations) ?? 0;
  const partial = partialBuckets(period);
  const partialNote = partial.size === 0 ? undefined : partialText(partial, period.bucket);
  const join2 = (...notes: (string | undefined)[]) => notes.filter(Boolean).join(' ') || undefined;
  const specs =
    conversations === 0
      ? []
      : [
          { name: 'volume', values: volumeValues(t('outcomes'), period.bucket, partial), note: partialNote },
          {
            name: 'agent_trend',
            values: trendValues(t('outcomes'), t('containment_trend'), period.bucket, agents, partial),
            note: join2(agentNote, partialNote),
          },
          { name: 'endings', values: endingValues(t('transfer_nodes'), t('drop_off'), agents), note: agentNote },
          { name: 'tool_failures', values: toolFailureValues(t('tool_failures'), names) },
          { name: 'durations', values: durationValues(t('duration_histogram')) },
          { name: 'weekday_hour', values: weekdayHourValues(t('hourly_volume')) },
          { name: 'abandonment', values: abandonmentValues(t('abandonment'), agents), note: agentNote, why: true },
          { name: 'response_times', values: responseTimeValues(t('response_times'), agents), note: agentNote, why: true },
        ];
  const charts = [];
  for (const spec of specs) {
    const rendered = await renderChart(spec.name, spec.values, vars, options.chartDir, periodBuckets(period));
    charts.push({ ...rendered, note: 'note' in spec ? spec.note : undefined, why: 'why' in spec && spec.why === true });
  }

  const html = renderPage({
    period,
    spaces: filters.spaces && filters.spaces.length > 0 ? filters.spaces : null,
    agents: params.agents,
    channel: params.channel,
    summary,
    firing: read.firing,
    coverage: t('coverage'),
    tiles: tiles(summary, read.previous),
    charts,
    leaderboard: t('agent_leaderboard'),
    failureLog: t('tool_failure_log'),
    precursors: t('handoff_precursors'),
    names,
    minSample: params.minSample,
    generatedAt: now,
    redacted: Boolean(options.redaction),
    withText: options.withText ?? false,
  });

  // A reader never sees half a page, and a failure leaves the previous page in place.
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, html);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw unwritable(path, err);
  }
  return { path, conversations, bytes: Buffer.byteLength(html) };
}

/** The note under a time chart naming the buckets the period cuts: "2 Nov and 15 Nov are partial days …". */
function partialText(partial: ReadonlySet<string>, bucket: 'day' | 'week'): string {
  const names = [...partial].sort().map((b) => new Date(`${b}T00:00:00Z`).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' }));
  const what = bucket === 'week' ? 'week' : 'day';
  const subject = names.length === 1 ? `${names[0]} is a partial ${what}` : `${names.join(' and ')} are partial ${what}s`;
  return `${subject} (the period holds only part of ${names.length === 1 ? 'it' : 'them'}), drawn pale: a lower count there is not a drop.`;
}

function unwritable(path: string, err: unknown): InvalidInputError {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  return new InvalidInputError(`cannot write ${path} (${code}): pass --out with a folder you can write`);
}
