// Where the API is and which key to use: from the environment or a file, never from a flag
// (flags end up in shell history and process listings). The crawler takes the plain values.

import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseBaseUrl } from '../../api/base-url.js';
import { ConfigFileError, entryLabel, parseConfigFile, type SpaceEntry } from './config-file.js';
import { UsageError } from '../errors.js';
import type { KeyProblemKind } from '../tally.js';

export interface ApiSettings {
  baseUrl: string;
  apiKey: string;
}

/** A missing or malformed setting: a usage error (exit 2). */
export class SettingsError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** The API's base URL, checked: http(s), ending in /api/v1, https unless on loopback. */
export function checkBaseUrl(input: string): string {
  try {
    const url = parseBaseUrl(input);
    return `${url.origin}${url.pathname}`;
  } catch (err) {
    throw new SettingsError(`${(err as Error).message}; set CONVODUCK_BASE_URL or --base-url`);
  }
}

/** A key looks like `np_…` and is one line of printable characters. */
export function checkApiKey(key: string, source: string): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new SettingsError(`${source} is empty: it must hold the API key (np_…)`);
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new SettingsError(`${source} holds something that is not an API key (one line, no spaces): check it`);
  }
  if (!trimmed.startsWith('np_')) throw new SettingsError(`${source} does not hold an API key: keys begin with np_`);
  return trimmed;
}

/** The flags of every command that talks to the API; the key itself is refused as a flag. */
export function withApiOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API address ending in /api/v1 (default: $CONVODUCK_BASE_URL)')
    .option('--api-key-file <file>', 'read the API key from this file instead of $CONVODUCK_API_KEY')
    .addOption(new Option('--api-key <key>').hideHelp());
}

export function resolveApiSettings(
  flags: { baseUrl?: string; apiKeyFile?: string; apiKey?: string },
  env: NodeJS.ProcessEnv = process.env,
): ApiSettings {
  if (flags.apiKey !== undefined) {
    throw new SettingsError('the API key is never taken as a flag: set CONVODUCK_API_KEY or use --api-key-file FILE');
  }
  const rawUrl = flags.baseUrl ?? env.CONVODUCK_BASE_URL;
  if (!rawUrl) {
    throw new SettingsError('no API address: set CONVODUCK_BASE_URL (or pass --base-url), e.g. https://api.example.com/api/v1');
  }
  const baseUrl = checkBaseUrl(rawUrl);
  let apiKey: string;
  if (flags.apiKeyFile) {
    let text: string;
    try {
      text = readFileSync(flags.apiKeyFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SettingsError(
        `cannot read the key file ${flags.apiKeyFile} (${code ?? 'error'}): pass --api-key-file with a readable file holding the key`,
      );
    }
    apiKey = checkApiKey(text, `key file ${flags.apiKeyFile}`);
  } else if (env.CONVODUCK_API_KEY !== undefined) {
    apiKey = checkApiKey(env.CONVODUCK_API_KEY, 'CONVODUCK_API_KEY');
  } else {
    throw new SettingsError('no API key: set CONVODUCK_API_KEY or pass --api-key-file FILE (never the key itself as a flag)');
  }
  return { baseUrl, apiKey };
}

/** One space of a multi-space job: where its API is, its key, and what the config file says of it. */
export interface SpaceSettings extends ApiSettings {
  /** how messages name the space before its slug is known (`space SLUG`, or `[[space]] #2 (line 7)`) */
  label: string;
  maxRpm?: number;
  /** the slug the config file expects GET /spaces to name */
  slug?: string;
  /** retention (src/erase/retention.ts): the config's retain_days and erase_deleted */
  retainDays?: number;
  eraseDeleted?: boolean;
  /** the config's redact_at_rest */
  redactAtRest?: boolean;
  /** the config's recordings: a folder, or false */
  recordings?: string | false;
  /** the config's shard: the shard index that owns the space, whatever the hash says */
  shard?: number;
  /** where the key came from, for the line that says it was refused (never the key) */
  keySource: string;
  /** why the key could not be read (unset variable, unreadable file); apiKey is then empty */
  keyProblem?: string;
  /** which of those it is, for the tally */
  keyProblemKind?: KeyProblemKind;
}

/** A space's key that cannot be read from where the config says, and why. */
class KeyProblemError extends ConfigFileError {
  constructor(
    message: string,
    readonly kind: KeyProblemKind,
  ) {
    super(message);
    this.name = 'KeyProblemError';
  }
}

/** `keys: 'skip-unreadable'`: a space whose key cannot be read is returned with its problem, not thrown. */
export interface ResolveOptions {
  keys?: 'required' | 'skip-unreadable';
}

/** The config file named by `--config`, else CONVODUCK_CONFIG; null when neither is given. */
export function configFilePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  const value = flag ?? env.CONVODUCK_CONFIG;
  return value === undefined || value === '' ? null : value;
}

/** The spaces of the config file, or without one the key's space from the flags and environment. */
export function resolveSpaces(
  flags: { baseUrl?: string; apiKeyFile?: string; apiKey?: string },
  configFile: string | null,
  options: ResolveOptions = {},
): SpaceSettings[] {
  if (configFile === null) {
    const settings = resolveApiSettings(flags);
    const keySource = flags.apiKeyFile ? `the key file ${flags.apiKeyFile}` : 'CONVODUCK_API_KEY';
    return [{ ...settings, label: 'the key’s space', keySource }];
  }
  if (flags.baseUrl !== undefined || flags.apiKeyFile !== undefined || flags.apiKey !== undefined) {
    throw new UsageError('--base-url and --api-key-file name one space: with a config file each [[space]] names its own — drop them');
  }
  return resolveConfigSpaces(configFile, process.env, options);
}

/** The config file's [[space]] tables, keys not read; an unreadable file is one line. */
export function readConfigEntries(file: string): SpaceEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new SettingsError(`cannot read the config file ${file} (${code}): pass --config (or CONVODUCK_CONFIG) with a readable TOML file`);
  }
  return parseConfigFile(text, file);
}

/** Reads the config file and each space's key (from its environment variable or key file). */
export function resolveConfigSpaces(file: string, env: NodeJS.ProcessEnv = process.env, options: ResolveOptions = {}): SpaceSettings[] {
  const entries = readConfigEntries(file);
  const spaces = entries.map((entry) => ({ entry, settings: readableSpace(entry, file, env, options) }));
  // Two tables with other names for the same key at the same address are the same space.
  for (let i = 0; i < spaces.length; i++) {
    const { entry, settings } = spaces[i]!;
    const twin = settings.keyProblem
      ? undefined
      : spaces.slice(0, i).find((s) => s.settings.baseUrl === settings.baseUrl && s.settings.apiKey === settings.apiKey);
    if (twin) {
      throw new ConfigFileError(
        `config ${file} line ${entry.line}: [[space]] #${entry.index} holds the same key as [[space]] #${twin.entry.index} ` +
          `(line ${twin.entry.line}) at the same base_url — list each space once`,
      );
    }
  }
  return spaces.map((s) => s.settings);
}

/** The space's settings; with 'skip-unreadable', a key that cannot be read is its problem, not an error. */
function readableSpace(entry: SpaceEntry, file: string, env: NodeJS.ProcessEnv, options: ResolveOptions): SpaceSettings {
  try {
    return spaceSettings(entry, file, env);
  } catch (err) {
    if (options.keys !== 'skip-unreadable' || !(err instanceof KeyProblemError)) throw err;
    const where = `config ${file} line ${entry.key.line}`;
    const keySource = 'env' in entry.key ? `environment variable ${entry.key.env} (${where})` : `the key file ${entry.key.file} (${where})`;
    const settings: SpaceSettings = { label: entryLabel(entry), baseUrl: entry.baseUrl, apiKey: '', keySource, keyProblem: err.message, keyProblemKind: err.kind };
    if (entry.slug !== undefined) settings.slug = entry.slug;
    if (entry.shard !== undefined) settings.shard = entry.shard;
    return settings;
  }
}

/** checkApiKey, its refusal a key problem of the space. */
function readKey(text: string, source: string): string {
  try {
    return checkApiKey(text, source);
  } catch (err) {
    if (err instanceof SettingsError) throw new KeyProblemError(err.message, 'not-a-key');
    throw err;
  }
}

function spaceSettings(entry: SpaceEntry, file: string, env: NodeJS.ProcessEnv): SpaceSettings {
  const where = `config ${file} line ${entry.key.line}`;
  let apiKey: string;
  if ('env' in entry.key) {
    const value = env[entry.key.env];
    if (value === undefined) {
      throw new KeyProblemError(`${where}: environment variable ${entry.key.env} (${entryLabel(entry)}) is not set — export it with the space's API key`, 'unset-variable');
    }
    apiKey = readKey(value, `${where}: environment variable ${entry.key.env}`);
  } else {
    let text: string;
    try {
      text = readFileSync(entry.key.file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new KeyProblemError(`${where}: cannot read the key file ${entry.key.file} of ${entryLabel(entry)} (${code}) — make it readable, holding the key`, 'unreadable-file');
    }
    apiKey = readKey(text, `${where}: key file ${entry.key.file}`);
  }
  const keySource = 'env' in entry.key ? `environment variable ${entry.key.env} (${where})` : `the key file ${entry.key.file} (${where})`;
  const settings: SpaceSettings = { label: entryLabel(entry), baseUrl: entry.baseUrl, apiKey, keySource };
  if (entry.maxRpm !== undefined) settings.maxRpm = entry.maxRpm;
  if (entry.slug !== undefined) settings.slug = entry.slug;
  if (entry.retainDays !== undefined) settings.retainDays = entry.retainDays;
  if (entry.eraseDeleted !== undefined) settings.eraseDeleted = entry.eraseDeleted;
  if (entry.redactAtRest !== undefined) settings.redactAtRest = entry.redactAtRest;
  if (entry.recordings !== undefined) settings.recordings = entry.recordings;
  if (entry.shard !== undefined) settings.shard = entry.shard;
  return settings;
}
