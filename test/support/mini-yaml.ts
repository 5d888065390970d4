// Reads the block-style YAML of CI recipes (GitHub Actions, GitLab CI) without a YAML dependency:
// nested mappings and sequences by indentation, plain and quoted scalars, "|" literal blocks,
// one-line [a, b] lists and comments. Anything else (anchors, flow mappings, folded or multi-line
// plain scalars) is refused rather than guessed.

export type Yaml = string | Yaml[] | { [key: string]: Yaml };

interface Line {
  indent: number;
  text: string;
  no: number;
}

export function parseYaml(source: string): Yaml {
  const raw = source.split('\n');
  let i = 0;

  const significant = (): Line | undefined => {
    while (i < raw.length) {
      const text = raw[i]!;
      const trimmed = text.trim();
      if (trimmed === '' || trimmed.startsWith('#')) {
        i++;
        continue;
      }
      if (/^\t/.test(text)) throw new Error(`line ${i + 1}: tab indentation`);
      return { indent: text.length - text.trimStart().length, text: trimmed, no: i + 1 };
    }
    return undefined;
  };

  const node = (minIndent: number): Yaml => {
    const line = significant();
    if (!line || line.indent < minIndent) return '';
    return line.text === '-' || line.text.startsWith('- ') ? sequence(line.indent) : mapping(line.indent);
  };

  const sequence = (indent: number): Yaml[] => {
    const items: Yaml[] = [];
    for (let line = significant(); line && line.indent === indent; line = significant()) {
      if (!(line.text === '-' || line.text.startsWith('- '))) break;
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        i++;
        items.push(node(indent + 1));
      } else if (/^[^'"[{|>][^:]*:(\s|$)/.test(rest) || /^(['"]).*?\1:(\s|$)/.test(rest)) {
        // "- key: value": a mapping whose first key sits where the text after "- " starts.
        const column = raw[i]!.indexOf(rest);
        raw[i] = ' '.repeat(column) + rest;
        items.push(mapping(column));
      } else {
        i++;
        items.push(scalarOrBlock(rest, indent));
      }
    }
    return items;
  };

  const mapping = (indent: number): { [key: string]: Yaml } => {
    const map: { [key: string]: Yaml } = {};
    for (let line = significant(); line && line.indent >= indent; line = significant()) {
      if (line.indent > indent) throw new Error(`line ${line.no}: unexpected indentation: ${line.text}`);
      if (line.text.startsWith('- ')) break;
      const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^'"#][^:]*?):(?:\s+(.*))?$/.exec(line.text);
      if (!m) throw new Error(`line ${line.no}: expected "key: value": ${line.text}`);
      const key = scalar(m[1]!, line.no);
      if (key in map) throw new Error(`line ${line.no}: duplicate key ${key}`);
      i++;
      const value = m[2] === undefined ? '' : stripComment(m[2]);
      if (value === '') {
        const next = significant();
        // A sequence may sit at the same indentation as its key.
        if (next && next.indent === indent && next.text.startsWith('- ')) map[key] = sequence(indent);
        else map[key] = node(indent + 1);
      } else {
        map[key] = scalarOrBlock(value, indent);
      }
    }
    return map;
  };

  const scalarOrBlock = (value: string, parentIndent: number): Yaml => {
    if (value === '|' || value === '|-') {
      const lines: string[] = [];
      let blockIndent = -1;
      while (i < raw.length) {
        const text = raw[i]!;
        const indent = text.length - text.trimStart().length;
        if (text.trim() !== '' && indent <= parentIndent) break;
        if (text.trim() !== '' && blockIndent < 0) blockIndent = indent;
        lines.push(text.trim() === '' ? '' : text.slice(blockIndent));
        i++;
      }
      while (lines.length && lines.at(-1) === '') lines.pop();
      return lines.join('\n') + (value === '|' ? '\n' : '');
    }
    if (value.startsWith('>') || value.startsWith('&') || value.startsWith('*') || value.startsWith('{')) {
      throw new Error(`line ${i}: ${value[0]} is not handled here`);
    }
    const next = raw[i];
    if (next !== undefined && next.trim() !== '' && !next.trim().startsWith('#')) {
      const nextIndent = next.length - next.trimStart().length;
      if (nextIndent > parentIndent && !next.trim().startsWith('- ') && !/^[^:]+:(\s|$)/.test(next.trim())) {
        throw new Error(`line ${i + 1}: multi-line plain scalars are not handled here`);
      }
    }
    if (value.startsWith('[')) {
      if (!value.endsWith(']')) throw new Error(`line ${i}: unterminated [list]`);
      const inner = value.slice(1, -1).trim();
      return inner === '' ? [] : inner.split(',').map((s) => scalar(s.trim(), i));
    }
    return scalar(value, i);
  };

  const result = node(0);
  const left = significant();
  if (left) throw new Error(`line ${left.no}: not read: ${left.text}`);
  return result;
}

/** A "#" starts a comment only after whitespace and outside quotes. */
function stripComment(value: string): string {
  if (value.startsWith('"') || value.startsWith("'")) {
    const q = value[0]!;
    let end = 1;
    while (end < value.length) {
      if (value[end] === '\\' && q === '"') end += 2;
      else if (value[end] === q && q === "'" && value[end + 1] === "'") end += 2;
      else if (value[end] === q) break;
      else end++;
    }
    return value.slice(0, end + 1) + value.slice(end + 1).replace(/\s+#.*$/, '');
  }
  return value.replace(/\s+#.*$/, '').trim();
}

function scalar(text: string, no: number): string {
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2) throw new Error(`line ${no}: unterminated "string"`);
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new Error(`line ${no}: unterminated 'string'`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (/^[&*!|>%@`]/.test(text)) throw new Error(`line ${no}: "${text}" is not handled here`);
  return text;
}

/** A mapping's value at a path of keys (and numeric indexes), or undefined. */
export function at(doc: Yaml, ...path: (string | number)[]): Yaml | undefined {
  let node: Yaml | undefined = doc;
  for (const key of path) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = Array.isArray(node) ? (typeof key === 'number' ? node[key] : undefined) : (node as Record<string, Yaml>)[key];
  }
  return node;
}
