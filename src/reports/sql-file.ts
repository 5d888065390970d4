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

/**
 * The column names the header's `Columns:` block lists: lines indented a little under it (a
 * description's continuation lines are indented further), up to the first blank line.
 */
export function headerColumns(header: string): string[] {
  const lines = header.split('\n');
  const at = lines.findIndex((l) => /^\s*columns\s*:\s*$/i.test(l));
  if (at < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const match = /^ {1,4}([A-Za-z_][A-Za-z0-9_]*)(\s|$)/.exec(line);
    if (match) names.push(match[1]!);
  }
  return names;
}
