// The aligned text table of `query`: widths come from the header and the first rows seen (the
// caller decides how many to buffer); later rows are fitted to those widths, so it can stream.

import { DuckDBTypeId, type DuckDBValue } from '@duckdb/node-api';
import { isNumericType, NUMERIC_TYPES, toText, UTC_WALL_CLOCK, type Column, type WallClock } from './values.js';

export const NULL_TEXT = 'NULL';
export const DEFAULT_MAX_CELL_WIDTH = 48;

function displayLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** One line, at most `width` characters: control characters shown visibly, overflow cut with `…`. */
export function fitCell(text: string, width: number): string {
  const flat = text.replace(/\r\n|\r|\n/g, '↵').replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '�');
  const chars = [...flat];
  if (chars.length <= width) return flat;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/** Types whose text is short and bounded: never cut, whatever --max-width says. */
const UNCUT_TYPES = new Set<DuckDBTypeId>([
  ...NUMERIC_TYPES,
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.UUID,
]);

export class TableLayout {
  readonly widths: number[];
  private readonly rightAlign: boolean[];
  private readonly cut: boolean[];

  /**
   * Column widths come from the header and `sample`; text columns are cut at `maxCellWidth`
   * (numbers, timestamps, dates and UUIDs never are: they are short, and useless cut).
   */
  constructor(
    private readonly columns: readonly Column[],
    sample: readonly (readonly DuckDBValue[])[],
    maxCellWidth = DEFAULT_MAX_CELL_WIDTH,
    private readonly wall: WallClock = UTC_WALL_CLOCK,
  ) {
    this.rightAlign = columns.map((c) => isNumericType(c.type));
    this.cut = columns.map((c) => !UNCUT_TYPES.has(c.type.typeId));
    this.widths = columns.map((col, i) => {
      const limit = UNCUT_TYPES.has(col.type.typeId) ? Number.MAX_SAFE_INTEGER : maxCellWidth;
      let width = displayLength(col.name);
      for (const row of sample) {
        const text = toText(row[i] ?? null, col.type, wall) ?? NULL_TEXT;
        width = Math.max(width, displayLength(fitCell(text, limit)));
        if (width >= limit) break;
      }
      return Math.max(width, 1);
    });
  }

  private line(cells: string[], align: boolean[], cut: boolean[]): string {
    return `${cells
      .map((cell, i) => {
        const width = this.widths[i]!;
        // A value wider than the sample showed overflows its column rather than lose digits.
        const text = cut[i] ? fitCell(cell, width) : fitCell(cell, Math.max(width, displayLength(cell)));
        const pad = ' '.repeat(Math.max(0, width - displayLength(text)));
        return align[i] ? pad + text : text + pad;
      })
      .join(' | ')
      .trimEnd()}\n`;
  }

  header(): string {
    const names = this.columns.map((c) => c.name);
    const rule = `${this.widths.map((w) => '-'.repeat(w)).join('-+-')}\n`;
    return (
      this.line(
        names,
        names.map(() => false),
        names.map(() => false),
      ) + rule
    );
  }

  row(row: readonly DuckDBValue[]): string {
    return this.line(
      this.columns.map((col, i) => toText(row[i] ?? null, col.type, this.wall) ?? NULL_TEXT),
      this.rightAlign,
      this.cut,
    );
  }
}
