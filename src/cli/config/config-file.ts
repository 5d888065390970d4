// The multi-space config file (TOML): one [[space]] table per space, each naming where its API
// is and where its key lives (an environment variable or a file), never the key itself.
// Pure: text in, entries out; every refusal is one line naming the file and line.

import { dirname, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { parseBaseUrl } from '../../api/base-url.js';
import { UsageError } from '../errors.js';

/** One [[space]] table, checked. */
export interface SpaceEntry {
  /** 1-based position among the file's [[space]] tables */
  index: number;
  /** the line of its [[space]] header */
  line: number;
  /** checked (see parseBaseUrl), without a trailing slash */
  baseUrl: string;
  /** where the key is: an environment variable's name, or a file (absolute: relative to the config file) */
  key: { env: string; line: number } | { file: string; line: number };
  maxRpm?: number;
  /** the space's slug, when the file names it (checked against GET /spaces before anything is stored) */
  slug?: string;
  /** erase its conversations older than this many days after each sync (src/erase/retention.ts) */
  retainDays?: number;
  /** erase its conversations deleted at the source after each sync */
  eraseDeleted?: boolean;
  /** redact its conversations before they are stored (src/redact/stored-body.ts) */
  redactAtRest?: boolean;
  /** where its recordings are downloaded (false: never, whatever --recordings says) */
  recordings?: string | false;
  /** the shard that owns it, whatever the hash says (src/shared/shards.ts); needs its slug */
  shard?: number;
}

export const SPACE_KEYS = ['base_url', 'api_key_env', 'api_key_file', 'max_rpm', 'slug', 'retain_days', 'erase_deleted', 'redact_at_rest', 'recordings', 'shard'] as const;

/** A config file that cannot be used as it is: exit 2, one line naming the file and line. */
export class ConfigFileError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/** A short name for a [[space]] table in messages: its slug when the file gives one. */
export function entryLabel(entry: Pick<SpaceEntry, 'index' | 'line' | 'slug'>): string {
  return entry.slug !== undefined ? `space ${entry.slug}` : `[[space]] #${entry.index} (line ${entry.line})`;
}

export function parseConfigFile(text: string, file: string): SpaceEntry[] {
  const at = (line: number, what: string) => new ConfigFileError(`config ${file} line ${line}: ${what}`);
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw at(err.line, `${reason} — fix the TOML (https://toml.io)`);
    }
    throw err;
  }
  const lines = locateKeys(text);
  const topLine = (key: string) => lines.top.get(key) ?? 1;

  for (const key of Object.keys(doc)) {
    if (key === 'space') continue;
    if (key === 'api_key') throw at(topLine(key), refusedKey());
    throw at(topLine(key), `unknown setting ${JSON.stringify(key)} — the file holds [[space]] tables only`);
  }
  const tables = doc.space;
  if (tables === undefined) {
    throw new ConfigFileError(`config ${file} names no space — add a [[space]] table with base_url and api_key_env or api_key_file`);
  }
  if (!Array.isArray(tables)) throw at(topLine('space'), 'space must be written [[space]] (one table per space)');

  const entries = tables.map((table, i) => {
    const header = lines.tables[i];
    const line = header?.line ?? 1;
    if (typeof table !== 'object' || table === null || Array.isArray(table)) throw at(line, 'space must be written [[space]] (one table per space)');
    const lineOf = (key: string) => header?.keys.get(key) ?? line;
    return checkTable(table as Record<string, unknown>, i + 1, line, lineOf, file, at);
  });
  refuseDuplicates(entries, file);
  return entries;
}

function refusedKey(): string {
  return 'api_key is refused: keys never go in the config file — name an environment variable with api_key_env, or a file with api_key_file';
}

function checkTable(
  table: Record<string, unknown>,
  index: number,
  line: number,
  lineOf: (key: string) => number,
  file: string,
  at: (line: number, what: string) => ConfigFileError,
): SpaceEntry {
  const label = `[[space]] #${index}`;
  for (const key of Object.keys(table)) {
    if (key === 'api_key') throw at(lineOf(key), refusedKey());
    if (!(SPACE_KEYS as readonly string[]).includes(key)) {
      throw at(lineOf(key), `unknown key ${JSON.stringify(key)} in ${label} — a space takes ${SPACE_KEYS.join(', ')}`);
    }
  }
  const text = (key: string): string | undefined => {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') throw at(lineOf(key), `${key} in ${label} must be a non-empty string`);
    return value.trim();
  };

  const rawUrl = text('base_url');
  if (rawUrl === undefined) throw at(line, `${label} has no base_url — add e.g. base_url = "https://api.example.com/api/v1"`);
  let baseUrl: string;
  try {
    const url = parseBaseUrl(rawUrl);
    baseUrl = `${url.origin}${url.pathname}`;
  } catch (err) {
    throw at(lineOf('base_url'), (err as Error).message);
  }

  const env = text('api_key_env');
  const keyFile = text('api_key_file');
  if (env !== undefined && keyFile !== undefined) {
    throw at(lineOf('api_key_file'), `${label} has both api_key_env and api_key_file — keep one`);
  }
  if (env === undefined && keyFile === undefined) {
    throw at(line, `${label} names no key — add api_key_env = "VARIABLE" or api_key_file = "/path/to/key"`);
  }
  if (env !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(env)) {
    throw at(lineOf('api_key_env'), `api_key_env ${JSON.stringify(env)} is not an environment variable's name (letters, digits, _)`);
  }
  const key =
    env !== undefined
      ? { env, line: lineOf('api_key_env') }
      : { file: resolve(dirname(resolve(file)), keyFile!), line: lineOf('api_key_file') };

  const entry: SpaceEntry = { index, line, baseUrl, key };
  if (table.max_rpm !== undefined) {
    const n = table.max_rpm;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
      throw at(lineOf('max_rpm'), `max_rpm in ${label} must be a whole number above 0`);
    }
    entry.maxRpm = n;
  }
  const slug = text('slug');
  if (slug !== undefined) entry.slug = slug;
  if (table.retain_days !== undefined) {
    const n = table.retain_days;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) throw at(lineOf('retain_days'), `retain_days in ${label} must be a whole number of days above 0`);
    entry.retainDays = n;
  }
  if (table.erase_deleted !== undefined) {
    if (typeof table.erase_deleted !== 'boolean') throw at(lineOf('erase_deleted'), `erase_deleted in ${label} must be true or false`);
    entry.eraseDeleted = table.erase_deleted;
  }
  if (table.redact_at_rest !== undefined) {
    if (typeof table.redact_at_rest !== 'boolean') throw at(lineOf('redact_at_rest'), `redact_at_rest in ${label} must be true or false`);
    entry.redactAtRest = table.redact_at_rest;
  }
  if (table.recordings !== undefined) {
    const r = table.recordings;
    if (r !== false && (typeof r !== 'string' || r === '')) throw at(lineOf('recordings'), `recordings in ${label} must be a folder ("DIR") or false`);
    entry.recordings = r;
  }
  if (table.shard !== undefined) {
    const k = table.shard;
    if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0) throw at(lineOf('shard'), `shard in ${label} must be a whole number ≥ 0 (the shard index that owns the space)`);
    if (slug === undefined) throw at(lineOf('shard'), `shard in ${label} needs the space's slug — add slug = "…" (a shard owns spaces by slug)`);
    entry.shard = k;
  }
  return entry;
}

/** Each space once: by slug, and by address and key source (the same key twice is the same space). */
function refuseDuplicates(entries: SpaceEntry[], file: string): void {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    for (const earlier of entries.slice(0, i)) {
      const sameSlug = e.slug !== undefined && e.slug === earlier.slug;
      const sameKey = e.baseUrl === earlier.baseUrl && keySource(e) === keySource(earlier);
      if (sameSlug || sameKey) {
        const why = sameSlug ? `space ${e.slug}` : `the same base_url and ${keySource(e)}`;
        throw new ConfigFileError(
          `config ${file} line ${e.line}: [[space]] #${e.index} repeats [[space]] #${earlier.index} (line ${earlier.line}): ${why} — list each space once`,
        );
      }
    }
  }
}

function keySource(e: SpaceEntry): string {
  return 'env' in e.key ? `api_key_env ${e.key.env}` : `api_key_file ${e.key.file}`;
}

interface TableLines {
  line: number;
  keys: Map<string, number>;
}

/**
 * The line of each [[space]] header and of each key under it (and of top-level keys), for
 * messages: the parser gives values, not positions. Lines inside multi-line strings are skipped.
 */
function locateKeys(text: string): { top: Map<string, number>; tables: TableLines[] } {
  const top = new Map<string, number>();
  const tables: TableLines[] = [];
  let current: Map<string, number> | null = top;
  let inString: string | null = null;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (inString) {
      if (raw.includes(inString)) inString = null;
      return;
    }
    const trimmed = raw.trim();
    if (/^\[\[\s*space\s*\]\]/.test(trimmed)) {
      tables.push({ line, keys: new Map() });
      current = tables.at(-1)!.keys;
      return;
    }
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(trimmed);
    if (header) {
      // another table ([space] or [x]): its keys are not a [[space]]'s
      if (!top.has(header[1]!.split('.')[0]!)) top.set(header[1]!.split('.')[0]!, line);
      current = null;
      return;
    }
    const key = /^("([^"]*)"|'([^']*)'|[A-Za-z0-9_-]+)\s*[=.]/.exec(trimmed);
    if (key) {
      const name = key[2] ?? key[3] ?? key[1]!;
      if (current && !current.has(name)) current.set(name, line);
      const rest = trimmed.slice(trimmed.indexOf('=') + 1);
      const opener = /^\s*("""|''')/.exec(rest);
      if (opener && !rest.slice(rest.indexOf(opener[1]!) + 3).includes(opener[1]!)) inString = opener[1]!;
    }
  });
  return { top, tables };
}
