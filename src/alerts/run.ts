// `alert`: every rule evaluated for its latest complete period, the values and alert states
// stored, and what fires returned. The rules file is read and checked first, against the reports
// the catalog finds, so a bad file changes nothing.

import { readFileSync } from 'node:fs';
import { loadCatalog, type CustomReportDir, type ReportDefinition } from '../reports/catalog.js';
import { loadSharedRelations } from '../reports/shared-relations.js';
import { InvalidInputError } from '../shared/errors.js';
import { Database } from '../store/database.js';
import { latestClockSkewMs } from '../store/sync-runs.js';
import { Evaluator, type Evaluation } from './evaluate.js';
import type { GroupLabels } from './values.js';
import { latestComplete, type Window } from './periods.js';
import { parseRules, type Rule } from './rules.js';
import { openStates, recordEvaluations, type AlertState, type StateChanges } from './state.js';
import { alertFacts, deliver, type DeliveryOutcome } from './deliver.js';
import { summaryText } from './message.js';
import { summarise, type RuleSummary } from './rule-summary.js';
import type { Webhook } from './webhook.js';

export interface RulesSource {
  file: string;
  customSqlDir?: CustomReportDir | null;
}

/** The rules of a file, checked against the catalog's reports. */
export function readRules(source: RulesSource): { rules: Rule[]; catalog: ReportDefinition[] } {
  let text: string;
  try {
    text = readFileSync(source.file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InvalidInputError(`rules file ${source.file} cannot be read (${code}) — pass --rules FILE (docs/alerts.example.toml is a start)`);
  }
  const catalog = loadCatalog(source.customSqlDir);
  return { rules: parseRules(text, source.file, catalog), catalog };
}

/** An alert as reported: the episode's row with its rule's and group's names. */
export interface AlertView {
  /** in words: what, where, how bad, compared with what (message.ts) */
  summary: string;
  rule: string;
  kind: Rule['kind'];
  period: Rule['period'];
  report: string | null;
  column: string | null;
  description: string;
  labels: GroupLabels;
  level: string;
  value: number | null;
  bound: number | null;
  firing_since: string;
  resolved_at: string | null;
}

export interface AlertRunResult {
  evaluated_at: string;
  /** the time judged as of, on the server's clock (this machine's shifted by the skew the latest sync measured): each rule's period is the latest complete at this instant */
  as_of: string;
  evaluations: number;
  /** per rule: its groups judged and skipped, and why (rule-summary.ts) */
  rules: RuleSummary[];
  /** every alert firing after the run */
  firing: AlertView[];
  /** of those, the ones that started in this run */
  started: AlertView[];
  resolved: AlertView[];
  /** null without a webhook */
  notifications: DeliveryOutcome | null;
}

export interface AlertRunOptions extends RulesSource {
  dbPath: string;
  /** the wall clock: when values were evaluated and notifications sent */
  now?: Date;
  /** judge as of this time on the server's clock (a missed run played later); default `now` on the server's clock; never before a period already judged */
  at?: Date;
  lockTimeoutMs?: number;
  /** where notifications go (webhook.ts); null: none are sent (what is owed stays owed) */
  webhook?: Webhook | null;
  /** the page or report showing the numbers (--external-url), linked from every notification */
  externalUrl?: string | null;
}

export async function runAlerts(options: AlertRunOptions): Promise<AlertRunResult> {
  const now = options.now ?? new Date();
  const { rules, catalog } = readRules(options);
  const shared = loadSharedRelations();
  const db = await Database.open(options.dbPath, { mustExist: true, lockTimeoutMs: options.lockTimeoutMs });
  try {
    // the conversations are timed by the server's clock: its periods end on it, not on ours
    const serverClockAheadMs = await latestClockSkewMs(db);
    const at = options.at ?? new Date(now.getTime() + serverClockAheadMs);
    const windows = rules.map((rule) => ({ rule, window: latestComplete(rule.period, at) }));
    await refuseGoingBack(db, windows);
    const evaluator = new Evaluator(db.connection, rules, catalog, shared, serverClockAheadMs);
    evaluator.plan(windows.map(({ rule, window }) => ({ rule, windows: [window] })));
    const evaluated: { rule: Rule; window: Window; evaluations: Evaluation[] }[] = [];
    for (const { rule, window } of windows) {
      evaluated.push({ rule, window, evaluations: await evaluator.evaluate(rule, window) });
    }
    const changes: StateChanges = { started: [], resolved: [], firing: [] };
    await db.transaction(async () => {
      for (const e of evaluated) await recordEvaluations(db, e.rule, e.window, e.evaluations, now, changes);
    });
    const context = { catalog, link: options.externalUrl ?? null };
    const notifications = options.webhook ? await deliver(db, rules, options.webhook, now, context) : null;
    const byName = new Map(rules.map((r) => [r.name, r]));
    const firing = (await openStates(db)).filter((s) => byName.has(s.rule));
    const views = async (states: readonly AlertState[], status: 'firing' | 'resolved') => {
      const out: AlertView[] = [];
      for (const s of states) out.push(alertView(byName.get(s.rule)!, s, summaryText(await alertFacts(db, s, byName.get(s.rule), status, now, context))));
      return out;
    };
    return {
      evaluated_at: now.toISOString(),
      as_of: at.toISOString(),
      evaluations: evaluated.reduce((n, e) => n + e.evaluations.length, 0),
      rules: evaluated.map((e) => summarise(e.rule, 1, e.evaluations)),
      firing: await views(firing, 'firing'),
      started: await views(changes.started, 'firing'),
      resolved: await views(changes.resolved, 'resolved'),
      notifications,
    };
  } finally {
    db.close();
  }
}

/**
 * Alert states move forward only: a period before one a rule already judged would reopen or
 * re-resolve episodes out of order, so it is refused before anything changes (a backtest looks back).
 */
async function refuseGoingBack(db: Database, windows: readonly { rule: Rule; window: Window }[]): Promise<void> {
  for (const { rule, window } of windows) {
    const row = await db.one(
      `SELECT greatest(
         (SELECT max(period_start) FROM alert_evaluations WHERE rule = $rule),
         (SELECT max(greatest(last_period_start, coalesce(resolved_at, last_period_start))) FROM alert_states WHERE rule = $rule)) AS judged`,
      { rule: rule.name },
    );
    const judged = row?.judged === null || row?.judged === undefined ? null : new Date(row.judged as Date);
    if (judged !== null && window.start.getTime() < judged.getTime()) throw new PeriodAlreadyJudgedError(rule, judged, window.start);
  }
}

/** A run asked to judge a period before one its rule already judged; nothing was changed. */
export class PeriodAlreadyJudgedError extends InvalidInputError {
  constructor(
    readonly rule: Rule,
    readonly judged: Date,
    readonly asked: Date,
  ) {
    super(`rule "${rule.name}" already judged the ${rule.period} from ${judged.toISOString()}, after the ${rule.period} from ${asked.toISOString()} asked for — alert states only move forward`);
  }
}

export function alertView(rule: Rule, s: AlertState, summary: string): AlertView {
  return {
    summary,
    rule: rule.name,
    kind: rule.kind,
    period: rule.period,
    report: rule.kind === 'freshness' ? null : rule.report,
    column: rule.kind === 'freshness' ? null : rule.column,
    description: rule.description,
    labels: JSON.parse(s.group_key) as GroupLabels,
    level: s.level,
    value: s.value,
    bound: s.bound,
    firing_since: s.firing_since.toISOString(),
    resolved_at: s.resolved_at ? s.resolved_at.toISOString() : null,
  };
}
