// The KPI tiles: each is one column of the `summary` report for the period, beside the same
// column of `summary` run over the period before (see period.ts).

import type { Row } from '../rows.js';
import { count, countChange, duration, durationChange, percent, pointsChange } from './human.js';

type Kind = 'count' | 'rate' | 'duration';

interface TileDefinition {
  /** the summary column */
  column: string;
  label: string;
  kind: Kind;
  /** whether a rise is good (true), bad (false) or neither (null) */
  riseIsGood: boolean | null;
  /** a short line under the figure, from the same row */
  note?: (row: Row) => string;
}

export const TILES: readonly TileDefinition[] = [
  { column: 'conversations', label: 'Conversations', kind: 'count', riseIsGood: null, note: (r) => `${count(num(r.ended))} ended` },
  {
    column: 'completion_rate',
    label: 'Contained (completed)',
    kind: 'rate',
    riseIsGood: true,
    note: (r) => `${count(num(r.completed))} of ${count(num(r.ended))} ended`,
  },
  {
    column: 'transfer_rate',
    label: 'Transferred to a human',
    kind: 'rate',
    riseIsGood: false,
    note: (r) => `${count(num(r.transferred))} of ${count(num(r.ended))} ended`,
  },
  {
    column: 'hang_up_rate',
    label: 'Hung up',
    kind: 'rate',
    riseIsGood: false,
    note: (r) => `${count(num(r.hung_up))} of ${count(num(r.ended))} ended`,
  },
  { column: 'median_duration_sec', label: 'Median duration', kind: 'duration', riseIsGood: null, note: () => 'of ended conversations' },
  {
    column: 'tool_failure_rate',
    label: 'Tool calls failing',
    kind: 'rate',
    riseIsGood: false,
    note: (r) => `${count(num(r.tool_failures))} of ${count(num(r.tool_calls))} calls`,
  },
];

export interface Tile {
  column: string;
  label: string;
  /** the CSV figure, and the one of the period before (undefined: no period before) */
  value: number | null;
  previous: number | null | undefined;
  display: string;
  note: string;
  /** e.g. "+2.3 pp", or why there is none */
  change: string;
  /** for colour and arrow: better, worse, or neither */
  judgement: 'better' | 'worse' | 'neutral';
  direction: 'up' | 'down' | 'none';
}

export function num(cell: unknown): number | null {
  return typeof cell === 'number' ? cell : null;
}

function show(kind: Kind, value: number | null): string {
  if (kind === 'count') return count(value);
  if (kind === 'rate') return percent(value);
  return duration(value);
}

function change(kind: Kind, now: number, before: number): string {
  if (kind === 'count') return countChange(now, before);
  if (kind === 'rate') return pointsChange(now, before);
  return durationChange(now, before);
}

/** `previous` is the period before's summary row, or null when there is no period before. */
export function tiles(current: Row, previous: Row | null): Tile[] {
  return TILES.map((t) => {
    const value = num(current[t.column]);
    const before = previous ? num(previous[t.column]) : undefined;
    let text: string;
    let direction: Tile['direction'] = 'none';
    let judgement: Tile['judgement'] = 'neutral';
    if (before === undefined) text = 'no earlier period to compare (give --since)';
    else if (previous && num(previous.conversations) === 0) text = 'no conversations in the period before';
    else if (value === null || before === null) text = 'not comparable (no figure in one of the periods)';
    else {
      text = `${change(t.kind, value, before)} vs the period before (${show(t.kind, before)})`;
      const diff = t.kind === 'rate' ? Number(((value - before) * 100).toFixed(1)) : value - before;
      direction = diff > 0 ? 'up' : diff < 0 ? 'down' : 'none';
      if (t.riseIsGood !== null && direction !== 'none') {
        judgement = (direction === 'up') === t.riseIsGood ? 'better' : 'worse';
      }
    }
    return {
      column: t.column,
      label: t.label,
      value,
      previous: before,
      display: show(t.kind, value),
      note: t.note?.(current) ?? '',
      change: text,
      judgement,
      direction,
    };
  });
}
