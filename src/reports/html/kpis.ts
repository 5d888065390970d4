// The KPI tiles: each is one column of the `summary` report for the period, beside the same
// column of `summary` run over the period before (see period.ts).

import type { Row } from '../rows.js';
import { count, countChange, duration, durationChange, percent, pointsChange } from './human.js';
import { countChangeIsSignificant, rateChangeIsSignificant } from './significance.js';

type Kind = 'count' | 'rate' | 'duration';

export interface TileDefinition {
  /** the summary column */
  column: string;
  label: string;
  kind: Kind;
  /** whether a rise is good (true), bad (false) or neither (null) */
  riseIsGood: boolean | null;
  /** for a rate: the summary columns it is the ratio of, for the test against noise */
  of?: { part: string; whole: string };
  /** a short line under the figure, from the same row */
  note?: (row: Row) => string;
}

export const TILES: readonly TileDefinition[] = [
  { column: 'conversations', label: 'Conversations', kind: 'count', riseIsGood: null, note: (r) => `${count(num(r.ended))} ended` },
  {
    column: 'completion_rate',
    of: { part: 'completed', whole: 'ended' },
    label: 'Contained (completed)',
    kind: 'rate',
    riseIsGood: true,
    note: (r) => `${count(num(r.completed))} of ${count(num(r.ended))} ended`,
  },
  {
    column: 'transfer_rate',
    of: { part: 'transferred', whole: 'ended' },
    label: 'Transferred to a human',
    kind: 'rate',
    riseIsGood: false,
    note: (r) => `${count(num(r.transferred))} of ${count(num(r.ended))} ended`,
  },
  {
    column: 'hang_up_rate',
    of: { part: 'hung_up', whole: 'ended' },
    label: 'Hung up',
    kind: 'rate',
    riseIsGood: false,
    note: (r) => `${count(num(r.hung_up))} of ${count(num(r.ended))} ended`,
  },
  { column: 'median_duration_sec', label: 'Median duration', kind: 'duration', riseIsGood: null, note: () => 'of ended conversations' },
  {
    column: 'tool_failure_rate',
    of: { part: 'tool_failures', whole: 'tool_calls' },
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
  /** for colour and arrow: better, worse, or neither (also when the change is within noise) */
  judgement: 'better' | 'worse' | 'neutral';
  /** whether the change is larger than the noise of its samples (null: not tested, or no change) */
  significant: boolean | null;
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

/**
 * Whether a tile's change is larger than its samples' noise: a rate by a two-proportion test on
 * its counts in both periods, a count by a Poisson test; a duration is not tested (null).
 */
export function changeIsSignificant(t: TileDefinition, current: Row, previous: Row): boolean | null {
  if (t.kind === 'count') {
    const now = num(current[t.column]);
    const before = num(previous[t.column]);
    return now === null || before === null ? null : countChangeIsSignificant(now, before);
  }
  if (t.kind === 'rate' && t.of) {
    const cells = [current[t.of.part], current[t.of.whole], previous[t.of.part], previous[t.of.whole]].map(num);
    if (cells.some((c) => c === null)) return null;
    const [now, nowOf, before, beforeOf] = cells as number[];
    return rateChangeIsSignificant(now!, nowOf!, before!, beforeOf!);
  }
  return null;
}

/** `previous` is the period before's summary row, or null when there is no period before. */
export function tiles(current: Row, previous: Row | null): Tile[] {
  return TILES.map((t) => {
    const value = num(current[t.column]);
    const before = previous ? num(previous[t.column]) : undefined;
    let text: string;
    let direction: Tile['direction'] = 'none';
    let judgement: Tile['judgement'] = 'neutral';
    let significant: boolean | null = null;
    if (before === undefined) text = 'no earlier period to compare (give --since)';
    else if (previous && num(previous.conversations) === 0) text = 'no conversations in the period before';
    else if (value === null || before === null) text = 'not comparable (no figure in one of the periods)';
    else {
      text = `${change(t.kind, value, before)} vs the period before (${show(t.kind, before)})`;
      const diff = t.kind === 'rate' ? Number(((value - before) * 100).toFixed(1)) : value - before;
      direction = diff > 0 ? 'up' : diff < 0 ? 'down' : 'none';
      if (direction !== 'none' && previous) significant = changeIsSignificant(t, current, previous);
      if (t.riseIsGood !== null && direction !== 'none' && significant === true) {
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
      significant,
      direction,
    };
  });
}
