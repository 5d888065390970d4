// Charts are Vega-Lite specs in sql/charts/NAME.vl.json, beside the reports they draw. Each spec
// says how to draw; its `usermeta` gives the title, the reading hint, the reports it reads and
// what to say when there is nothing to draw. The page fills in the data and renders each spec to
// an SVG string here, in Node, with no browser and no network.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { defaultSqlDir } from '../catalog.js';
import { QueryError } from '../../shared/errors.js';
import type { Values } from './chart-data.js';

export interface ChartMeta {
  title: string;
  hint: string;
  reports: string[];
  empty: string;
}

export interface RenderedChart {
  name: string;
  meta: ChartMeta;
  /** inline SVG, or null when there was no data (meta.empty is shown instead) */
  svg: string | null;
}

export function defaultChartDir(): string {
  return join(defaultSqlDir(), 'charts');
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new QueryError(`chart spec ${file} cannot be read: ${message.split('\n')[0]}`);
  }
}

/** Replaces `{name}` in every string of the spec (titles, hints) with vars[name]. */
function fill<T>(value: T, vars: Record<string, string>): T {
  if (typeof value === 'string') {
    return value.replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole) as T;
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)])) as T;
  }
  return value;
}

function chartMeta(spec: Record<string, unknown>, file: string): ChartMeta {
  const meta = spec.usermeta as Partial<ChartMeta> | undefined;
  if (!meta || typeof meta.title !== 'string' || typeof meta.hint !== 'string' || typeof meta.empty !== 'string') {
    throw new QueryError(`chart spec ${file} needs "usermeta": {"title", "hint", "reports", "empty"}`);
  }
  return { title: meta.title, hint: meta.hint, reports: Array.isArray(meta.reports) ? meta.reports : [], empty: meta.empty };
}

/** Keeps a rendered SVG self-contained and small: no namespace URLs (inline SVG in HTML needs none). */
function inlineSvg(svg: string, title: string): string {
  return svg
    .replace(/\s+xmlns(:xlink)?="[^"]*"/g, '')
    .replace(/^<svg /, `<svg role="img" aria-label="${title.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" `);
}

type Encoding = Record<string, { field?: string; scale?: { domain?: unknown[]; range?: unknown[] } } | undefined>;

/**
 * What the data decides about the scales: an x axis on `bucket` lists every bucket of the period
 * (a day without data stays on the axis, at zero), and a colour legend lists only the values drawn.
 */
function fitScales(drawing: Record<string, unknown>, values: Values, buckets: readonly string[]): void {
  const inner = drawing.spec as Record<string, unknown> | undefined;
  const encoding = (drawing.encoding ?? inner?.encoding) as Encoding | undefined;
  if (!encoding) return;
  const x = encoding.x;
  if (x?.field === 'bucket' && buckets.length > 0) {
    const seen = values.map((v) => String(v.bucket));
    x.scale = { ...x.scale, domain: [...new Set([...buckets, ...seen])].sort() };
  }
  const color = encoding.color;
  const domain = color?.scale?.domain;
  const range = color?.scale?.range;
  if (color?.field && Array.isArray(domain) && Array.isArray(range) && domain.length === range.length) {
    const present = new Set(values.map((v) => v[color.field!]));
    const keep = domain.map((d) => present.has(d as string));
    color.scale = { ...color.scale, domain: domain.filter((_, i) => keep[i]), range: range.filter((_, i) => keep[i]) };
  }
}

export async function renderChart(
  name: string,
  values: Values,
  vars: Record<string, string>,
  dir: string = defaultChartDir(),
  buckets: readonly string[] = [],
): Promise<RenderedChart> {
  const file = join(dir, `${name}.vl.json`);
  const spec = fill(readJson(file), vars);
  const meta = chartMeta(spec, file);
  if (values.length === 0) return { name, meta, svg: null };
  const { usermeta: _meta, $schema: _schema, ...drawing } = spec;
  fitScales(drawing, values, buckets);
  const config = readJson(join(dir, 'theme.json'));
  const full = { ...drawing, config, data: { values } } as unknown as TopLevelSpec;
  let svg: string;
  try {
    const view = new vega.View(vega.parse(compile(full).spec), { renderer: 'none' });
    svg = await view.toSVG();
    view.finalize();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new QueryError(`chart ${file} could not be drawn: ${message.split('\n')[0]}`);
  }
  return { name, meta, svg: inlineSvg(svg, meta.title) };
}
