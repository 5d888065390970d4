// API settings from the environment and files, and the CLI's flag parsers.
import { describe, expect, it } from 'vitest';
import { checkApiKey, checkBaseUrl, resolveApiSettings } from '../../src/cli/config/settings.js';
import { parsePositiveInt } from '../../src/cli/parse.js';
import { parseDurationArg, parseTimeArg } from '../../src/shared/time.js';

const now = new Date('2026-11-21T12:00:00Z');

describe('API settings', () => {
  it('requires https off loopback and the /api/v1 segment', () => {
    expect(checkBaseUrl('http://127.0.0.1:8080/api/v1/')).toBe('http://127.0.0.1:8080/api/v1');
    expect(checkBaseUrl('https://api.example.com/api/v1')).toBe('https://api.example.com/api/v1');
    expect(() => checkBaseUrl('http://api.example.com/api/v1')).toThrow(/https/);
    expect(() => checkBaseUrl('https://api.example.com/')).toThrow(/\/api\/v1/);
    expect(() => checkBaseUrl('not a url')).toThrow(/not a URL/);
  });
  it('takes the key from the environment or a file, and says which is missing', () => {
    expect(resolveApiSettings({}, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1', CONVODUCK_API_KEY: 'np_abc\n' })).toEqual({
      baseUrl: 'http://localhost:1/api/v1',
      apiKey: 'np_abc',
    });
    expect(() => resolveApiSettings({}, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1' })).toThrow(/CONVODUCK_API_KEY/);
    expect(() => resolveApiSettings({ apiKeyFile: '/nonexistent/key' }, { CONVODUCK_BASE_URL: 'http://localhost:1/api/v1' })).toThrow(
      /cannot read the key file/,
    );
    expect(() => checkApiKey('sk_live_123', 'CONVODUCK_API_KEY')).toThrow(/np_/);
  });
});

describe('flag parsers', () => {
  it('reads ISO dates, durations back from now and named days', () => {
    expect(parseTimeArg('--since', '2026-11-01', now).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseTimeArg('--since', '2026-11-01T08:30:00+02:00', now).toISOString()).toBe('2026-11-01T06:30:00.000Z');
    // a space for the T, as people and SQL write it
    expect(parseTimeArg('--since', '2026-11-20 08:00Z', now).toISOString()).toBe('2026-11-20T08:00:00.000Z');
    expect(parseTimeArg('--since', '2026-11-20 08:00', now)).toEqual(parseTimeArg('--since', '2026-11-20T08:00', now));
    expect(() => parseTimeArg('--since', '2026-11-20 soon', now)).toThrow(/is not a time/);
    expect(parseTimeArg('--since', '7d', now).toISOString()).toBe('2026-11-14T12:00:00.000Z');
    expect(parseTimeArg('--since', '24h', now).toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(parseTimeArg('--since', 'yesterday', now).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(() => parseTimeArg('--since', '2026-13-45', now)).toThrow(/--since "2026-13-45" is not a time/);
    expect(() => parseTimeArg('--since', 'soon', now)).toThrow(/is not a time/);
  });
  it('reads durations and positive integers', () => {
    expect(parseDurationArg('--overlap', '90m')).toBe(90 * 60_000);
    expect(() => parseDurationArg('--overlap', '-1h')).toThrow(/not a duration/);
    expect(parsePositiveInt('--max-rpm', '45')).toBe(45);
    expect(() => parsePositiveInt('--max-rpm', '0')).toThrow(/above 0/);
    expect(() => parsePositiveInt('--max-rpm', '1.5')).toThrow(/whole number/);
  });
});
