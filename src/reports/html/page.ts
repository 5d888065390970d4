// The page: one HTML file with its style inline and its charts as inline SVG, so it opens from
// disk, a mail attachment or a CI artifact with nothing fetched. No script. Every figure carries
// the CSV's value in data-value, beside the text people read.

import type { FiringAlert } from '../rows.js';
import type { ReportRows, Row } from '../rows.js';
import type { RenderedChart } from './charts.js';
import { count, dateTime, duration, percent, span } from './human.js';
import { num, type Tile } from './kpis.js';
import type { PageNames } from './names.js';
import type { Period } from './period.js';
import { PAGE_STYLE } from './style.js';

/** The most recent failed tool calls listed in the table. */
export const RECENT_FAILURES = 20;
/** The hand-off precursors listed: those with the highest lift, seen at least MIN_PRECURSOR times. */
export const TOP_PRECURSORS = 10;
export const MIN_PRECURSOR = 3;

export interface PageInput {
  period: Period;
  /** the filters as the command line gave them, for the header */
  spaces: readonly string[] | null;
  agents: readonly string[] | null;
  channel: string | null;
  summary: Row;
  /** alerts firing now (alert_states), shown first */
  firing: readonly FiringAlert[];
  coverage: ReportRows;
  tiles: Tile[];
  /** `why`: the chart belongs to the Why section */
  charts: (RenderedChart & { note?: string; why?: boolean })[];
  leaderboard: ReportRows;
  failureLog: ReportRows;
  precursors: ReportRows;
  /** how agents and tools are named; tables get a Space column when it lists several spaces */
  names: PageNames;
  minSample: number;
  generatedAt: Date;
  /** --redact was on: the page says so */
  redacted: boolean;
  /** --with-text: the failed calls' tool outputs are shown (a page is mailed around: none by default) */
  withText: boolean;
}

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The exact figure as an attribute: the CSV's text for it (empty for NULL). */
function dataValue(value: unknown): string {
  return `data-value="${value === null || value === undefined ? '' : esc(value)}"`;
}

export function renderPage(input: PageInput): string {
  const conversations = num(input.summary.conversations) ?? 0;
  const body =
    conversations === 0
      ? `<p class="nothing" data-empty="true">No conversations in this period${filterText(input) ? ' with these filters' : ''}.</p>`
      : [
          tilesSection(input.tiles),
          coverageNote(input.coverage),
          chartsSection(input.charts.filter((c) => !c.why)),
          leaderboardSection(input),
          failuresSection(input),
          whySection(input),
        ].join('\n');
  const space = input.summary.space ? ` · ${esc(input.summary.space)}` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="convoduck report --html">
<title>Conversations report${space} · ${esc(periodText(input.period))}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>Conversations report${space}</h1>
${headerLines(input)}
</header>
<main>
${firingSection(input.firing)}${body}
</main>
<footer>
<p>Every figure on this page comes from the SQL reports in <code>sql/</code>, run with the same filters:
<code>convoduck report</code> writes the same numbers as CSV. Tiles: <code>summary</code>, compared with
<code>summary</code> over the period before${input.period.previous ? '' : ' (none: the period starts at the first conversation)'}.
Written ${esc(dateTime(input.generatedAt, input.period.tz))} (${esc(input.period.tz)}).</p>
</footer>
</body>
</html>
`;
}

function periodText(period: Period): string {
  const start = period.start ? dateTime(period.start, period.tz) : 'the first conversation';
  return `${start} – ${dateTime(period.end, period.tz)}`;
}

function filterText(input: PageInput): string {
  const parts: string[] = [];
  if (input.spaces && input.spaces.length > 0) parts.push(`space ${input.spaces.join(', ')}`);
  if (input.agents && input.agents.length > 0) parts.push(`agent ${input.agents.join(', ')}`);
  if (input.channel) parts.push(`channel ${input.channel}`);
  return parts.join('; ');
}

function headerLines(input: PageInput): string {
  const p = input.period;
  const length = p.start ? ` · ${span(p.start, p.end)}` : '';
  const from = p.from ? '' : ' (from the first stored conversation)';
  const lines = [
    `<p class="period" data-from="${esc(p.start?.toISOString() ?? '')}" data-to="${esc(p.end.toISOString())}">` +
      `<strong>Period:</strong> ${esc(periodText(p))} (${esc(p.tz)})${length}${from}</p>`,
  ];
  const filters = filterText(input);
  if (filters) lines.push(`<p class="filters"><strong>Only:</strong> ${esc(filters)}</p>`);
  if (input.names.spaces.length > 1) {
    lines.push(
      `<p class="spaces" data-spaces="${esc(input.names.spaces.join(' '))}"><strong>Spaces:</strong> ${esc(input.names.spaces.join(', '))}; ` +
        'the charts name each agent and tool with its space in brackets, the tables have a Space column.</p>',
    );
  }
  lines.push(privacyLine(input));
  const synced = input.summary.last_sync_ended_at;
  lines.push(
    typeof synced === 'string'
      ? `<p class="synced" ${dataValue(synced)}><strong>Data synced:</strong> ${esc(dateTime(new Date(synced), p.tz))}` +
          ` (last sync: ${esc(input.summary.last_sync_status)})</p>`
      : `<p class="synced" data-value=""><strong>Data synced:</strong> no finished sync recorded</p>`,
  );
  return lines.join('\n');
}

/** The warning when some conversations' details are not (fully) stored: from `coverage`. */
function coverageNote(coverage: ReportRows): string {
  const sum = (column: string) => coverage.rows.reduce((n, r) => n + (num(r[column]) ?? 0), 0);
  const missing = sum('details_missing');
  const setAside = sum('details_set_aside');
  const deleted = sum('details_deleted');
  const inProgress = sum('details_in_progress');
  const total = missing + setAside + deleted + inProgress;
  if (total === 0) return '';
  const parts = [
    missing > 0 ? `${count(missing)} not fetched yet` : '',
    setAside > 0 ? `${count(setAside)} set aside (the API sent what convoduck cannot store as rows)` : '',
    deleted > 0 ? `${count(deleted)} deleted at the source first` : '',
    inProgress > 0 ? `${count(inProgress)} fetched while still running` : '',
  ].filter(Boolean);
  return `<div class="warning" role="note" data-incomplete="${total}" data-missing="${missing}" data-set-aside="${setAside}" data-deleted="${deleted}" data-in-progress="${inProgress}">
<strong>Coverage:</strong> ${count(total)} ${total === 1 ? 'conversation has' : 'conversations have'} no complete detail (${parts.join(', ')}).
Node and tool figures leave them out; the <code>coverage</code> report has them per day, <code>api_drift</code> why details were set aside.</div>`;
}

function tilesSection(tiles: Tile[]): string {
  const items = tiles.map((t) => {
    const arrow = t.direction === 'up' ? '▲ ' : t.direction === 'down' ? '▼ ' : '';
    const word =
      t.judgement !== 'neutral'
        ? ` <span class="word">(${t.judgement})</span>`
        : t.significant === false
          ? ' <span class="word">(within noise)</span>'
          : '';
    // a flag name never breaks across lines
    const change = esc(t.change).replace(/(--[a-z][a-z-]*)/g, '<code class="flag">$1</code>');
    return `<div class="tile" data-kpi="${esc(t.column)}" ${dataValue(t.value)} data-previous="${t.previous === undefined || t.previous === null ? '' : esc(t.previous)}" data-judgement="${t.judgement}" data-significant="${t.significant === null ? '' : t.significant}">
<div class="label">${esc(t.label)}</div>
<div class="figure">${esc(t.display)}</div>
<div class="note">${esc(t.note)}</div>
<div class="change ${t.judgement}">${arrow}${change}${word}</div>
</div>`;
  });
  return `<section class="tiles" aria-label="Key figures">\n${items.join('\n')}\n</section>`;
}

function chartsSection(charts: PageInput['charts']): string {
  const figures = charts.map((c) => {
    const note = c.note ? ` ${esc(c.note)}` : '';
    const content = c.svg ?? `<p class="empty">${esc(c.meta.empty)}</p>`;
    return `<figure class="chart" data-chart="${esc(c.name)}" data-reports="${esc(c.meta.reports.join(' '))}">
<h2>${esc(c.meta.title)}</h2>
<p class="hint">${esc(c.meta.hint)}${note}</p>
<div class="drawing">${content}</div>
<figcaption>From the report${c.meta.reports.length === 1 ? '' : 's'} ${c.meta.reports.map((r) => `<code>${esc(r)}</code>`).join(' and ')}.</figcaption>
</figure>`;
  });
  return `<section class="charts">\n${figures.join('\n')}\n</section>`;
}

interface Column {
  name: string;
  title: string;
  show: (row: Row) => string;
  numeric?: boolean;
}

function table(id: string, columns: Column[], rows: Row[], rowClass: (row: Row) => string = () => ''): string {
  const head = columns.map((c) => `<th scope="col"${c.numeric ? ' class="num"' : ''}>${esc(c.title)}</th>`).join('');
  const body = rows.map((row) => {
    const cls = rowClass(row);
    const cells = columns.map(
      (c) => `<td data-col="${esc(c.name)}" ${dataValue(row[c.name])}${c.numeric ? ' class="num"' : ''}>${c.show(row)}</td>`,
    );
    return `<tr${cls ? ` class="${cls}"` : ''}>${cells.join('')}</tr>`;
  });
  return `<table data-table="${esc(id)}"><thead><tr>${head}</tr></thead><tbody>\n${body.join('\n')}\n</tbody></table>`;
}

const rate = (column: string) => (row: Row) => esc(percent(num(row[column])));

/** The Space column, first in every table of a page that holds several spaces (none otherwise). */
function spaceColumn(names: PageNames): Column[] {
  return names.spaces.length > 1 ? [{ name: 'space', title: 'Space', show: (r) => esc(r.space ?? '') }] : [];
}

function leaderboardSection(input: PageInput): string {
  const columns: Column[] = [
    ...spaceColumn(input.names),
    { name: 'agent_name', title: 'Agent', show: (r) => esc(input.names.agentName(r)) + (r.small_sample === true ? ' <span class="badge">small sample</span>' : '') },
    { name: 'conversations', title: 'Conversations', show: (r) => esc(count(num(r.conversations))), numeric: true },
    { name: 'completion_rate', title: 'Contained', show: rate('completion_rate'), numeric: true },
    { name: 'transfer_rate', title: 'Transferred', show: rate('transfer_rate'), numeric: true },
    { name: 'hang_up_rate', title: 'Hung up', show: rate('hang_up_rate'), numeric: true },
    { name: 'early_hangup_rate', title: 'Early hang-ups', show: rate('early_hangup_rate'), numeric: true },
    { name: 'median_duration_sec', title: 'Median duration', show: (r) => esc(duration(num(r.median_duration_sec))), numeric: true },
    { name: 'tool_failure_rate', title: 'Tool calls failing', show: rate('tool_failure_rate'), numeric: true },
  ];
  return `<section class="table" data-report="agent_leaderboard">
<h2>Agents, best contained first</h2>
<p class="hint">Rates are over ended conversations. Agents marked <span class="badge">small sample</span> had fewer than ${input.minSample} conversations: one conversation moves their rates a lot, so they come last. From the report <code>agent_leaderboard</code>.</p>
${table('agent_leaderboard', columns, input.leaderboard.rows, (r) => (r.small_sample === true ? 'small' : ''))}
</section>`;
}

/** What personal data the page may hold: whether free text is on it, and whether it was redacted. */
function privacyLine(input: PageInput): string {
  const text = input.withText
    ? 'the failed tool calls’ outputs are shown (--with-text)'
    : 'no transcript text or tool payload is shown (--with-text adds the failed calls’ outputs)';
  const redaction = input.redacted
    ? 'redaction was on: e-mail addresses, phone, card and IBAN numbers replaced, session_ref hashed (names and numbers in words are not caught)'
    : 'redaction was off';
  return `<p class="privacy" data-redacted="${input.redacted}" data-with-text="${input.withText}"><strong>Personal data:</strong> ${esc(text)}; ${esc(redaction)}.</p>`;
}

function failuresSection(input: PageInput): string {
  const rows = input.failureLog.rows.slice(0, RECENT_FAILURES);
  const tz = input.period.tz;
  const columns: Column[] = [
    { name: 'called_at', title: `When (${tz})`, show: (r) => (typeof r.called_at === 'string' ? esc(dateTime(new Date(r.called_at), tz)) : '—') },
    ...spaceColumn(input.names),
    { name: 'conversation_id', title: 'Conversation', show: (r) => `<code>${esc(r.conversation_id)}</code>` },
    { name: 'agent_name', title: 'Agent', show: (r) => esc(input.names.agentName(r)) },
    { name: 'tool_name', title: 'Tool', show: (r) => esc(input.names.toolName(r)) },
    { name: 'node_key', title: 'Node', show: (r) => esc(r.node_key ?? '') },
    { name: 'status', title: 'Status', show: (r) => esc(r.status ?? '(none)') },
    ...(input.withText ? [{ name: 'output_redacted', title: 'Output', show: (r: Row) => `<code>${esc(r.output_redacted ?? '')}</code>` }] : []),
  ];
  const total = input.failureLog.rows.length;
  const content =
    rows.length === 0
      ? '<p class="empty">No tool call failed in this period.</p>'
      : table('tool_failure_log', columns, rows);
  return `<section class="table" data-report="tool_failure_log">
<h2>${rows.length === total ? 'Failed tool calls, newest first' : `The ${RECENT_FAILURES} most recent failed tool calls`}</h2>
<p class="hint">${count(total)} failed ${total === 1 ? 'call' : 'calls'} in the period; look a conversation up with <code>convoduck query</code> by its id. From the report <code>tool_failure_log</code>.</p>
${content}
</section>`;
}

/**
 * The hand-off precursors the page lists: events other than a node (the node a transfer ends at
 * always precedes it), seen at least MIN_PRECURSOR times, highest lift first; an event never seen
 * before a completion (no lift) ranks above every lift.
 */
export function topPrecursors(precursors: ReportRows): Row[] {
  const lift = (r: Row) => num(r.lift) ?? Infinity;
  return precursors.rows
    .filter((r) => r.event !== 'node' && (num(r.with_event) ?? 0) >= MIN_PRECURSOR)
    .sort((a, b) => (lift(b) === lift(a) ? 0 : lift(b) > lift(a) ? 1 : -1) || (num(b.with_event) ?? 0) - (num(a.with_event) ?? 0))
    .slice(0, TOP_PRECURSORS);
}

function whySection(input: PageInput): string {
  const tz = input.period.tz;
  const rows = topPrecursors(input.precursors);
  const columns: Column[] = [
    ...spaceColumn(input.names),
    { name: 'agent_name', title: 'Agent', show: (r) => esc(input.names.agentName(r)) },
    { name: 'outcome', title: 'Ended', show: (r) => esc(r.outcome === 'hung_up' ? 'hung up' : r.outcome) },
    { name: 'event', title: 'In the last turns', show: (r) => esc(String(r.event).replace('_', ' ')) },
    { name: 'share', title: 'Before this end', show: rate('share'), numeric: true },
    { name: 'completed_share', title: 'Before a completion', show: rate('completed_share'), numeric: true },
    { name: 'lift', title: 'Lift', show: (r) => esc(num(r.lift) === null ? '—' : `${num(r.lift)!.toFixed(1)}×`), numeric: true },
    { name: 'latest_conversation_id', title: 'Latest conversation', show: (r) => `<code>${esc(r.latest_conversation_id)}</code>` },
    {
      name: 'latest_started_at',
      title: `Started (${tz})`,
      show: (r) => (typeof r.latest_started_at === 'string' ? esc(dateTime(new Date(r.latest_started_at), tz)) : '—'),
    },
  ];
  const content =
    rows.length === 0
      ? '<p class="empty">No event came before transfers or hang-ups often enough to rank.</p>'
      : table('handoff_precursors', columns, rows);
  return `<section class="why" aria-label="Why">
<h2>Why: where conversations are lost, how fast the agent answers, what comes before a hand-off</h2>
${chartsSection(input.charts.filter((c) => c.why === true))}
<section class="table" data-report="handoff_precursors">
<h2>What comes before a transfer or hang-up</h2>
<p class="hint">Events in the last turns before the end, seen at least ${MIN_PRECURSOR} times; the lift is how many times more often they come before this end than before a completion (— : never before one). Each row names its most recent conversation: look it up with <code>convoduck query</code> by its id. The nodes visited last are in the report <code>handoff_precursors</code>, which this table is from.</p>
${content}
</section>
</section>`;
}

/** What is firing, above everything else: the rule, the group, the value against its bound, since when. */
function firingSection(firing: readonly FiringAlert[]): string {
  if (firing.length === 0) return '';
  const figure = (v: number | null) => (v === null ? '' : esc(Math.round(v * 1000) / 1000));
  const rows = firing
    .map((a) => {
      const group = Object.entries(a.labels).map(([k, v]) => `${k}=${v ?? ''}`).join(' ');
      return `<tr data-level="${esc(a.level)}"><td>${esc(a.level)}</td><td>${esc(a.rule)}</td><td>${esc(group)}</td><td class="num">${figure(a.value)}</td><td class="num">${figure(a.bound)}</td><td>${esc(a.firing_since)}</td></tr>`;
    })
    .join('\n');
  return `<section class="firing" id="firing">
<h2>Firing now: ${firing.length} ${firing.length === 1 ? 'alert' : 'alerts'}</h2>
<p>From the latest <code>convoduck alert</code> run (table <code>alert_states</code>).</p>
<table><thead><tr><th>level</th><th>rule</th><th>group</th><th>value</th><th>bound</th><th>firing since (UTC)</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>
`;
}
