// Where the API is and which key to use: from the environment or a file, never from a flag
// (flags end up in shell history and process listings).

import { readFileSync } from 'node:fs';

export interface ApiSettings {
  baseUrl: string;
  apiKey: string;
}

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The API's base URL, checked: http(s), ending in /api/v1, https unless on loopback. */
export function checkBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new SettingsError(
      `base URL ${JSON.stringify(input)} is not a URL: set CONVODUCK_BASE_URL (or --base-url) to e.g. https://api.example.com/api/v1`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SettingsError(`base URL must start with https:// (got ${url.protocol}//)`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new SettingsError(
      `base URL ${url.origin} uses http:// off this machine: use https:// (plain http is allowed only for 127.0.0.1/localhost, e.g. the simulator)`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api/v1')) {
    throw new SettingsError(`base URL ${JSON.stringify(input)} must end with /api/v1 (the API's version segment)`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new SettingsError('base URL must not carry credentials, a query or a fragment: pass the key via CONVODUCK_API_KEY');
  }
  return `${url.origin}${path}`;
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

export function resolveApiSettings(
  flags: { baseUrl?: string; apiKeyFile?: string },
  env: NodeJS.ProcessEnv = process.env,
): ApiSettings {
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
