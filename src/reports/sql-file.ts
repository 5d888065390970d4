// Reading a `.sql` file as the reports and the shared relations are written: an opening comment
// block (the header, with `Name: value` lines such as `Title:`), then one statement.

/** The opening comment block: the `--` lines before the first line of SQL. */
export function parseHeader(sql: string): string {
  const lines: string[] = [];
  for (const line of sql.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '') {
      if (lines.length > 0) lines.push('');
      continue;
    }
    if (!trimmed.startsWith('--')) break;
    lines.push(trimmed.replace(/^--\s?/, ''));
  }
  return lines.join('\n').trim();
}

/** The value of the header's first `Name: value` line (name case-insensitive), if any. */
export function headerField(header: string, name: string): string | undefined {
  const pattern = new RegExp(`^\\s*${name}\\s*:\\s*(.+)$`, 'i');
  for (const line of header.split('\n')) {
    const match = pattern.exec(line);
    if (match) return match[1]!.trim();
  }
  return undefined;
}

/**
 * A file's SQL ready to be a subquery or a view's body: without trailing comments and
 * semicolons (used for reports and shared relations alike).
 */
export function reportBody(sql: string): string {
  const lines = sql.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length > 0 && /^\s*(--.*)?$/.test(lines[lines.length - 1]!)) lines.pop();
  return lines.join('\n').replace(/;\s*(--[^\n]*)?$/, '');
}

/** One column a report's header describes under `Columns:`. */
export interface ColumnDoc {
  name: string;
  description: string;
}

/**
 * The header's `Columns:` list: a line `  name   what it holds` per column (the name indented at
 * most 4), a more indented line going on with the one before; the list ends at a blank line or
 * the next `Name:` line.
 */
export function headerColumns(header: string): ColumnDoc[] {
  const lines = header.split('\n');
  const start = lines.findIndex((l) => /^columns\s*:\s*$/i.test(l.trim()));
  if (start < 0) return [];
  const columns: ColumnDoc[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || /^\S/.test(line)) break;
    const column = /^\s{1,4}([A-Za-z_][A-Za-z0-9_]*)\s+(\S.*)$/.exec(line);
    if (column) columns.push({ name: column[1]!, description: column[2]!.trim() });
    else if (columns.length > 0) columns[columns.length - 1]!.description += ` ${line.trim()}`;
  }
  return columns;
}

/** What the header says of the report before its lists: its text without the `Title:` line, `Columns:` and after. */
export function headerSummary(header: string): string {
  const lines = header.split('\n');
  const end = lines.findIndex((l) => /^(columns|parameters)\s*:/i.test(l.trim()));
  return lines
    .slice(0, end < 0 ? lines.length : end)
    .filter((l) => !/^\s*title\s*:/i.test(l))
    .join('\n')
    .trim();
}
