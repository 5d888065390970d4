// The formats a report run writes: a module of its own so the CLI can show them in --help
// without loading DuckDB (the number parameters are in filters/number-params.ts).

export const OUTPUT_FORMATS = ['csv', 'json', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
