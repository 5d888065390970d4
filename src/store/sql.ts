// Quoting for the few places SQL must name a value or identifier it cannot bind: a path in
// ATTACH or COPY, a setting, a table's name. Values that can be bound are bound instead.

/** A SQL string literal: `it's` → `'it''s'`. */
export function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A quoted SQL identifier: `my "t"` → `"my ""t"""`. */
export function sqlIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
