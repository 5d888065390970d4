// Reading what `report --html` wrote, as a test checks it: the tiles' and tables' exact figures
// (data-value), the values each chart drew (its marks' aria-labels, `key: value; …`), every
// reference that could load something, and the CSV files the page is compared with.

import { readFileSync } from 'node:fs';

export interface Tile {
  value: string;
  previous: string;
  figure: string;
  change: string;
  /** data-judgement: better, worse or neutral (the change's colour) */
  judgement: string;
  /** data-significant: 'true', 'false', or '' when not tested */
  significant: string;
}

export interface Chart {
  /** the drawn marks' labels as key → value, in drawing order; empty when the chart says it has no data */
  marks: Record<string, string>[];
  svg: boolean;
  empty: string | null;
}

export interface Page {
  html: string;
  empty: boolean;
  tiles: Map<string, Tile>;
  /** data-incomplete of the coverage warning; null when there is none */
  incomplete: number | null;
  charts: Map<string, Chart>;
  /** data-table → rows of column → data-value */
  tables: Map<string, Record<string, string>[]>;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]!) : null;
}

function inner(html: string, cls: string): string {
  const m = new RegExp(`<div class="${cls}[^"]*">([\\s\\S]*?)</div>`).exec(html);
  return m ? unescape(m[1]!.replace(/<[^>]+>/g, '')) : '';
}

/** Data marks only (bars, points, heat-map cells): not axes, legends, titles or line paths. */
const MARK_ROLES = new Set(['bar', 'point', 'rect mark']);

export function markLabel(label: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of label.split('; ')) {
    const at = part.indexOf(': ');
    out[part.slice(0, at)] = part.slice(at + 2);
  }
  return out;
}

export function parsePage(html: string): Page {
  const tiles = new Map<string, Tile>();
  for (const m of html.matchAll(/(<div class="tile"[^>]*>)([\s\S]*?)\n<\/div>/g)) {
    tiles.set(attr(m[1]!, 'data-kpi')!, {
      value: attr(m[1]!, 'data-value')!,
      previous: attr(m[1]!, 'data-previous')!,
      figure: inner(m[2]!, 'figure'),
      change: inner(m[2]!, 'change'),
      judgement: attr(m[1]!, 'data-judgement') ?? '',
      significant: attr(m[1]!, 'data-significant') ?? '',
    });
  }
  const charts = new Map<string, Chart>();
  for (const m of html.matchAll(/<figure class="chart" data-chart="(\w+)"[^>]*>([\s\S]*?)<\/figure>/g)) {
    const body = m[2]!;
    const marks = [...body.matchAll(/<\w+ [^>]*role="graphics-symbol"[^>]*>/g)]
      .map((t) => t[0])
      .filter((t) => MARK_ROLES.has(attr(t, 'aria-roledescription') ?? ''))
      .map((t) => markLabel(attr(t, 'aria-label')!));
    const empty = /<p class="empty">([^<]*)<\/p>/.exec(body);
    charts.set(m[1]!, { marks, svg: body.includes('<svg'), empty: empty ? unescape(empty[1]!) : null });
  }
  const tables = new Map<string, Record<string, string>[]>();
  for (const m of html.matchAll(/<table data-table="(\w+)">([\s\S]*?)<\/table>/g)) {
    const rows = [...m[2]!.matchAll(/<tr[^>]*>(<td[\s\S]*?)<\/tr>/g)].map((r) =>
      Object.fromEntries([...r[1]!.matchAll(/<td data-col="(\w+)" data-value="([^"]*)"/g)].map((c) => [c[1]!, unescape(c[2]!)])),
    );
    tables.set(m[1]!, rows);
  }
  const warning = /data-incomplete="(\d+)"/.exec(html);
  return {
    html,
    empty: html.includes('data-empty="true"'),
    tiles,
    incomplete: warning ? Number(warning[1]) : null,
    charts,
    tables,
  };
}

/**
 * Every reference in the page that a browser could fetch: src and href attributes, CSS url(…) and
 * @import. A reference inside the page (`#id`) is fine and left out.
 */
export function outsideReferences(html: string): string[] {
  const refs = [
    ...[...html.matchAll(/\s(?:src|href|xlink:href|srcset|action|poster|data)\s*=\s*["']?([^"'\s>]*)/gi)].map((m) => m[1]!),
    ...[...html.matchAll(/url\(\s*["']?([^"')]*)/gi)].map((m) => m[1]!),
    ...[...html.matchAll(/@import\s+([^;]*)/gi)].map((m) => m[1]!),
  ];
  return refs.filter((r) => !r.startsWith('#'));
}

/** An RFC 4180 CSV (the reports' files) as rows of column → text. */
export function readCsv(path: string): Record<string, string>[] {
  const text = readFileSync(path, 'utf8');
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') record.push(field), (field = '');
    else if (ch === '\n') record.push(field), records.push(record), (record = []), (field = '');
    else field += ch;
  }
  if (field !== '' || record.length > 0) record.push(field), records.push(record);
  const [header, ...rows] = records;
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

/** A CSV number cell (empty: null). */
export function n(cell: string | undefined): number | null {
  return cell === undefined || cell === '' ? null : Number(cell);
}

/** A chart's percentage as drawn (`12.34%`, from the 4-place CSV rate; `—` for none) back to the rate. */
export function rateOf(text: string | undefined): number | null {
  if (text === undefined || text === '' || text === '—') return null;
  return Math.round(Number(text.replace('%', '')) * 100) / 10_000;
}
