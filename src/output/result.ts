// A DuckDB result streamed out as a table, CSV, JSON or NDJSON, chunk by chunk (so a result
// larger than memory still comes out): what `query` and `search` print with.

import type { DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import { rowRedactor, type Redaction } from '../redact/outputs.js';
import { CsvWriter } from './csv.js';
import type { QueryFormat } from './formats.js';
import type { OutputSink } from './sink.js';
import { DEFAULT_MAX_CELL_WIDTH, TableLayout } from './table.js';
import { jsonRow, UTC_WALL_CLOCK, type Column, type WallClock } from './values.js';

export interface ResultOptions {
  format: QueryFormat;
  /** table format: longest cell shown before it is cut with `…` (default 48) */
  maxCellWidth?: number;
  /** table format: rows read before column widths are fixed (default 1000) */
  tableSampleRows?: number;
  /** csv: keep text cells that look like spreadsheet formulas as they are */
  raw?: boolean;
  /** the result's columns named in src/redact/outputs.ts cleaned, in every format */
  redaction?: Redaction | null;
  /** how a TIMESTAMP without zone prints (default UTC) */
  wallClock?: WallClock;
}

/**
 * Streams a DuckDB result into `sink` in the given format and returns the row count.
 * `onOutput` is called before the first byte is written. Stops early if the sink closes.
 */
export async function writeResult(
  result: DuckDBResult,
  options: ResultOptions,
  sink: OutputSink,
  onOutput: () => void = () => undefined,
): Promise<number> {
  const names = result.deduplicatedColumnNames();
  const columns: Column[] = names.map((name, i) => ({ name, type: result.columnType(i) }));
  const wall = options.wallClock ?? UTC_WALL_CLOCK;
  // the user's own SQL cannot be wrapped in the redaction functions: its rows are cleaned here
  const redact = options.redaction ? rowRedactor(names, options.redaction) : null;
  let count = 0;
  let started = false;
  const write = async (text: string) => {
    if (!started) {
      started = true;
      onOutput();
    }
    await sink.write(text);
  };

  async function* chunks(): AsyncGenerator<DuckDBValue[][]> {
    for (;;) {
      if (sink.closed) return;
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) return;
      yield redact ? chunk.getRows().map(redact) : chunk.getRows();
    }
  }

  switch (options.format) {
    case 'csv': {
      const csv = new CsvWriter(columns, { wall, raw: options.raw ?? false });
      await write(csv.header());
      for await (const rows of chunks()) {
        await write(rows.map((row) => csv.row(row)).join(''));
        count += rows.length;
      }
      break;
    }
    case 'ndjson': {
      for await (const rows of chunks()) {
        await write(rows.map((row) => `${jsonRow(columns, row, wall)}\n`).join(''));
        count += rows.length;
      }
      break;
    }
    case 'json': {
      for await (const rows of chunks()) {
        await write(rows.map((row) => `${count++ === 0 ? '[\n' : ',\n'}${jsonRow(columns, row, wall)}`).join(''));
      }
      await write(count === 0 ? '[]\n' : '\n]\n');
      break;
    }
    case 'table': {
      const sampleSize = options.tableSampleRows ?? 1000;
      const sample: DuckDBValue[][] = [];
      const source = chunks();
      for (;;) {
        if (sample.length >= sampleSize) break;
        const next = await source.next();
        if (next.done) break;
        sample.push(...next.value);
      }
      const layout = new TableLayout(columns, sample, options.maxCellWidth ?? DEFAULT_MAX_CELL_WIDTH, wall);
      await write(layout.header() + sample.map((row) => layout.row(row)).join(''));
      count = sample.length;
      for await (const rows of source) {
        await write(rows.map((row) => layout.row(row)).join(''));
        count += rows.length;
      }
      break;
    }
  }
  await sink.flush();
  return count;
}
