// The formats a result prints in (query, search): a module of its own so the CLI can list them without loading DuckDB.

export const QUERY_FORMATS = ['table', 'csv', 'json', 'ndjson'] as const;
export type QueryFormat = (typeof QUERY_FORMATS)[number];
