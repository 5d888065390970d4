// What a user can choose for a report run, and the defaults: a module of its own so the CLI can
// show them in --help without loading DuckDB.

export const OUTPUT_FORMATS = ['csv', 'json', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULT_EARLY_SECONDS = 10;
export const DEFAULT_MIN_SAMPLE = 20;
export const DEFAULT_DAYS = 7;
