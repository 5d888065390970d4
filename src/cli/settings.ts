// Where the API is and which key to use: from the environment or a file, never from a flag
// (flags end up in shell history and process listings). The crawler takes the plain values.

import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseBaseUrl } from '../api/client.js';
import { UsageError } from './errors.js';

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
