// The alert rules file: TOML, one `[[rule]]` table per rule. Parsing checks everything a run
// would trip on (an unknown report, column, kind or key, a missing bound) and names the line, so
// a draft is corrected before it is ever evaluated.

import { parse } from 'smol-toml';
import type { ReportDefinition } from '../reports/catalog.js';
import { headerColumns } from '../reports/sql-file.js';
import { InvalidInputError } from '../shared/errors.js';
import { PERIODS, type Period } from './periods.js';

export const RULE_KINDS = ['threshold', 'change', 'anomaly', 'freshness'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export const AGGREGATES = ['sum', 'max', 'min', 'avg'] as const;
export type Aggregate = (typeof AGGREGATES)[number];
export const DIRECTIONS = ['up', 'down', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const FRESHNESS_OF = ['conversations', 'sync'] as const;

interface RuleCommon {
  name: string;
  /** line of the rule's `[[rule]]` header in the file */
  line: number;
  period: Period;
  description: string;
  /** what to do when it fires: a page linked from every notification (http(s)); null without one */
  runbookUrl: string | null;
}

/** A rule that reads a report's column per group. */
export interface ReportRule extends RuleCommon {
  report: string;
  column: string;
  group: string[];
  /** rows kept only where these columns equal these values */
  where: Record<string, string | number | boolean>;
  /** how the rows of one group become one value */
  aggregate: Aggregate;
  /** a group whose `volumeColumn` (aggregated alike) is below `minVolume` is skipped */
  volumeColumn: string | null;
  minVolume: number;
  /** fire only when the counts behind the value (the volume column for a rate, else the value as a count) make chance less likely than 1 - confidence (chance.ts) */
  confidence: number | null;
}

export interface ThresholdRule extends ReportRule {
  kind: 'threshold';
  warnAbove: number | null;
  errorAbove: number | null;
  warnBelow: number | null;
  errorBelow: number | null;
}

export interface ChangeRule extends ReportRule {
  kind: 'change';
  /** the previous period, or the average of the last `periods` */
  against: 'previous' | 'average';
  periods: number;
  /** compare with the same slot of earlier weeks (same weekday, same hour of the week) */
  seasonal: boolean;
  direction: Direction;
  /** warn/error are fractions of the expected value (true) or differences in the column's unit */
  relative: boolean;
  warn: number | null;
  error: number | null;
  /** expected values below this are too small to judge: skipped */
  minExpected: number;
}

export interface AnomalyRule extends ReportRule {
  kind: 'anomaly';
  /** trailing periods read (of the same slot of the week when `seasonal`) */
  history: number;
  seasonal: boolean;
  minPoints: number;
  direction: Direction;
  warnZ: number | null;
  errorZ: number | null;
  /** the least distance from the mean that may fire, in the column's unit */
  floor: number;
}

export interface FreshnessRule extends RuleCommon {
  kind: 'freshness';
  of: (typeof FRESHNESS_OF)[number];
  warnHours: number | null;
  errorHours: number | null;
  /** conversations: a space is judged only when it had at least this many in the 7 days before */
  usualMin: number;
}

export type Rule = ThresholdRule | ChangeRule | AnomalyRule | FreshnessRule;
export type ValueRule = ThresholdRule | ChangeRule | AnomalyRule;

const COMMON_KEYS = ['name', 'kind', 'period', 'description', 'runbook_url'];
const REPORT_KEYS = ['report', 'column', 'group', 'where', 'aggregate', 'volume_column', 'min_volume', 'confidence'];
const KIND_KEYS: Record<RuleKind, string[]> = {
  threshold: [...REPORT_KEYS, 'warn_above', 'error_above', 'warn_below', 'error_below'],
  change: [...REPORT_KEYS, 'against', 'periods', 'seasonal', 'direction', 'relative', 'warn', 'error', 'min_expected'],
  anomaly: [...REPORT_KEYS, 'history', 'seasonal', 'min_points', 'direction', 'warn_z', 'error_z', 'floor'],
  freshness: ['of', 'warn_hours', 'error_hours', 'usual_min'],
};

/** Parses and checks a rules file's text against the reports of `catalog`. */
export function parseRules(text: string, file: string, catalog: readonly ReportDefinition[]): Rule[] {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number; message?: string };
    const what = String(e.message ?? err).split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
    throw new InvalidInputError(`${file} line ${e.line ?? 1}: not valid TOML (${what}) — fix the line, see docs/alerts.md`);
  }
  const lines = text.split(/\r?\n/);
  const starts = lines.flatMap((l, i) => (/^\s*\[\[\s*rule\s*\]\]/.test(l) ? [i + 1] : []));
  for (const key of Object.keys(doc)) {
    if (key !== 'rule') throw new InvalidInputError(`${file} line ${lineOf(lines, 1, lines.length, key)}: unknown table or key "${key}" — a rules file holds only [[rule]] tables`);
  }
  const tables = doc.rule;
  if (!Array.isArray(tables) || tables.length === 0) {
    throw new InvalidInputError(`${file}: no [[rule]] table — add at least one rule (docs/alerts.md has examples)`);
  }
  const reports = new Map(catalog.map((r) => [r.name, r]));
  const names = new Set<string>();
  return tables.map((table, i) => {
    const start = starts[i] ?? 1;
    const end = starts[i + 1] ?? lines.length + 1;
    const rule = new RuleReader(table as Record<string, unknown>, file, lines, start, end, reports).read();
    if (names.has(rule.name)) throw new InvalidInputError(`${file} line ${start}: a second rule named "${rule.name}" — give every rule its own name`);
    names.add(rule.name);
    return rule;
  });
}

function lineOf(lines: readonly string[], start: number, end: number, key: string): number {
  const pattern = new RegExp(`^\\s*["']?${key.replace(/[^A-Za-z0-9_-]/g, '.')}["']?\\s*=`);
  for (let n = start; n < end; n++) if (pattern.test(lines[n - 1] ?? '')) return n;
  return start;
}

class RuleReader {
  constructor(
    private readonly t: Record<string, unknown>,
    private readonly file: string,
    private readonly lines: readonly string[],
    private readonly start: number,
    private readonly end: number,
    private readonly reports: ReadonlyMap<string, ReportDefinition>,
  ) {}

  private name = '';

  fail(key: string | null, what: string): never {
    const line = key === null ? this.start : lineOf(this.lines, this.start, this.end, key);
    const who = this.name ? ` rule "${this.name}":` : '';
    throw new InvalidInputError(`${this.file} line ${line}:${who} ${what}`);
  }

  read(): Rule {
    this.name = this.text('name') ?? this.fail(null, 'the rule has no name — add name = "…"');
    if (!/^[A-Za-z0-9_.:-]+$/.test(this.name)) this.fail('name', `name "${this.name}" may hold only letters, digits, _ . : and - — rename it`);
    const kind = this.choice('kind', RULE_KINDS) ?? this.fail(null, `no kind — add kind = one of ${RULE_KINDS.join(', ')}`);
    const allowed = new Set([...COMMON_KEYS, ...KIND_KEYS[kind]]);
    for (const key of Object.keys(this.t)) {
      if (!allowed.has(key)) this.fail(key, `unknown key "${key}" for kind ${kind} — allowed: ${[...allowed].join(', ')}`);
    }
    const common = {
      name: this.name,
      line: this.start,
      period: this.choice('period', PERIODS) ?? this.fail(null, `no period — add period = one of ${PERIODS.join(', ')}`),
      description: this.text('description') ?? '',
      runbookUrl: this.url('runbook_url'),
    };
    if (kind === 'freshness') {
      const rule: FreshnessRule = {
        ...common,
        kind,
        of: this.choice('of', FRESHNESS_OF) ?? this.fail(null, `no "of" — add of = "conversations" or of = "sync"`),
        warnHours: this.number('warn_hours'),
        errorHours: this.number('error_hours'),
        usualMin: this.number('usual_min') ?? 1,
      };
      if (rule.warnHours === null && rule.errorHours === null) this.fail(null, 'no bound — add warn_hours or error_hours');
      return rule;
    }
    const base = { ...common, ...this.reportPart() };
    if (kind === 'threshold') {
      const rule: ThresholdRule = {
        ...base,
        kind,
        warnAbove: this.number('warn_above'),
        errorAbove: this.number('error_above'),
        warnBelow: this.number('warn_below'),
        errorBelow: this.number('error_below'),
      };
      if ([rule.warnAbove, rule.errorAbove, rule.warnBelow, rule.errorBelow].every((b) => b === null)) {
        this.fail(null, 'no bound — add warn_above, error_above, warn_below or error_below');
      }
      return rule;
    }
    if (kind === 'change') {
      const against = this.choice('against', ['previous', 'average'] as const) ?? 'previous';
      const rule: ChangeRule = {
        ...base,
        kind,
        against,
        periods: against === 'previous' ? 1 : this.count('periods') ?? 7,
        seasonal: this.bool('seasonal') ?? false,
        direction: this.choice('direction', DIRECTIONS) ?? 'both',
        relative: this.bool('relative') ?? true,
        warn: this.number('warn'),
        error: this.number('error'),
        minExpected: this.number('min_expected') ?? 0,
      };
      if (rule.warn === null && rule.error === null) this.fail(null, 'no bound — add warn or error (a change, e.g. 0.5 for 50 %)');
      return rule;
    }
    const rule: AnomalyRule = {
      ...base,
      kind,
      history: this.count('history') ?? 28,
      seasonal: this.bool('seasonal') ?? false,
      minPoints: this.count('min_points') ?? 7,
      direction: this.choice('direction', DIRECTIONS) ?? 'both',
      warnZ: this.number('warn_z'),
      errorZ: this.number('error_z'),
      floor: this.number('floor') ?? 0,
    };
    if (rule.warnZ === null && rule.errorZ === null) this.fail(null, 'no bound — add warn_z or error_z (e.g. 3)');
    if (rule.minPoints > rule.history) this.fail('min_points', `min_points ${rule.minPoints} is more than history ${rule.history} — lower min_points or raise history`);
    return rule;
  }

  private reportPart(): Omit<ReportRule, keyof RuleCommon> {
    const reportName = this.text('report') ?? this.fail(null, 'no report — add report = "NAME" (convoduck report --list shows them)');
    const report = this.reports.get(reportName) ?? this.fail('report', `report "${reportName}" does not exist — convoduck report --list shows the reports (add --sql-dir for your own)`);
    const columns = headerColumns(report.header).map((c) => c.name);
    const known = (key: string, column: string) => {
      if (!columns.includes(column)) this.fail(key, `"${column}" is not a column of report ${reportName} — its columns: ${columns.join(', ')}`);
      return column;
    };
    const column = known('column', this.text('column') ?? this.fail(null, 'no column — add column = "…" (a column of the report)'));
    const groupValue = this.t.group ?? [];
    if (!Array.isArray(groupValue) || groupValue.some((g) => typeof g !== 'string')) this.fail('group', 'group must be a list of column names, e.g. ["space", "agent_id"]');
    const group = (groupValue as string[]).map((g) => known('group', g));
    const whereValue = this.t.where ?? {};
    if (typeof whereValue !== 'object' || whereValue === null || Array.isArray(whereValue)) this.fail('where', 'where must be a table, e.g. where = { level = "agent" }');
    const where: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(whereValue as Record<string, unknown>)) {
      known('where', key);
      if (!['string', 'number', 'boolean'].includes(typeof value)) this.fail('where', `where.${key} must be a text, number or true/false`);
      where[key] = value as string | number | boolean;
    }
    const volume = this.text('volume_column');
    return {
      report: reportName,
      column,
      group,
      where,
      aggregate: this.choice('aggregate', AGGREGATES) ?? 'sum',
      volumeColumn: volume === null ? null : known('volume_column', volume),
      minVolume: this.number('min_volume') ?? 0,
      confidence: this.confidence(),
    };
  }

  private confidence(): number | null {
    const c = this.number('confidence');
    if (c !== null && !(c > 0 && c < 1)) this.fail('confidence', `confidence ${c} must be between 0 and 1, e.g. 0.999 (chance below 0.1 %)`);
    return c;
  }

  private text(key: string): string | null {
    const v = this.t[key];
    if (v === undefined) return null;
    if (typeof v !== 'string' || v.trim() === '') this.fail(key, `${key} must be a non-empty text in quotes`);
    return v;
  }

  private url(key: string): string | null {
    const v = this.text(key);
    if (v === null) return null;
    try {
      const url = new URL(v);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
    } catch {
      // refused below
    }
    this.fail(key, `${key} "${v}" is not an http(s) address — give the page that says what to do`);
  }

  private number(key: string): number | null {
    const v = this.t[key];
    if (v === undefined) return null;
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) this.fail(key, `${key} must be a number`);
    return n;
  }

  private count(key: string): number | null {
    const n = this.number(key);
    if (n !== null && (!Number.isInteger(n) || n < 1)) this.fail(key, `${key} must be a whole number of at least 1`);
    return n;
  }

  private bool(key: string): boolean | null {
    const v = this.t[key];
    if (v === undefined) return null;
    if (typeof v !== 'boolean') this.fail(key, `${key} must be true or false`);
    return v;
  }

  private choice<T extends string>(key: string, choices: readonly T[]): T | null {
    const v = this.text(key);
    if (v === null) return null;
    if (!(choices as readonly string[]).includes(v)) this.fail(key, `${key} "${v}" is not one of ${choices.join(', ')}`);
    return v as T;
  }
}
