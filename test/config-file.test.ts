// The multi-space config file: what it accepts, and the one line it refuses with (file and line named).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigFileError, parseConfigFile } from '../src/cli/config/config-file.js';
import { configFilePath, resolveConfigSpaces } from '../src/cli/config/settings.js';
import { scratch } from './support/scratch.js';

const FILE = '/etc/convoduck/spaces.toml';

function refusal(text: string): string {
  try {
    parseConfigFile(text, FILE);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigFileError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('the config was accepted');
}

describe('parseConfigFile', () => {
  it('reads every [[space]] table: address, key source, optional max_rpm and slug', () => {
    const entries = parseConfigFile(
      `# two brands
[[space]]
base_url = "https://api.example.com/api/v1/"
api_key_env = "ACME_PROD_KEY"
max_rpm = 45

[[space]]
base_url = "http://127.0.0.1:8080/api/v1"
api_key_file = "keys/staging.key"   # relative to the config file
slug = "acme-staging"
shard = 0
`,
      FILE,
    );
    expect(entries).toEqual([
      { index: 1, line: 2, baseUrl: 'https://api.example.com/api/v1', key: { env: 'ACME_PROD_KEY', line: 4 }, maxRpm: 45 },
      {
        index: 2,
        line: 7,
        baseUrl: 'http://127.0.0.1:8080/api/v1',
        key: { file: '/etc/convoduck/keys/staging.key', line: 9 },
        slug: 'acme-staging',
        shard: 0,
      },
    ]);
  });

  it('refuses a key written in the file, naming its line', () => {
    const message = refusal(`[[space]]
base_url = "https://api.example.com/api/v1"
api_key_env = "A"

[[space]]
base_url = "https://api.example.com/api/v1"
api_key = "np_live_secret"
`);
    expect(message).toMatch(/^config \/etc\/convoduck\/spaces\.toml line 7: api_key is refused/);
    expect(message).toContain('api_key_env');
    expect(message).not.toContain('np_live_secret');
    expect(refusal(`api_key = "np_x"\n[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\n`)).toMatch(/line 1: api_key is refused/);
  });

  it('refuses unknown keys, naming the line, the table and the keys a space takes', () => {
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nmax_rmp = 45\n`)).toMatch(
      /line 4: unknown key "max_rmp" in \[\[space\]\] #1 — a space takes base_url, api_key_env, api_key_file, max_rpm, slug, retain_days, erase_deleted, redact_at_rest, recordings, shard$/,
    );
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nredact_at_rest = "yes"\n`)).toMatch(/line 4: redact_at_rest in \[\[space\]\] #1 must be true or false$/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nrecordings = true\n`)).toMatch(/line 4: recordings in \[\[space\]\] #1 must be a folder \("DIR"\) or false$/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nslug = "acme"\nshard = -1\n`)).toMatch(/line 5: shard in \[\[space\]\] #1 must be a whole number ≥ 0 \(the shard index that owns the space\)$/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nshard = 2\n`)).toMatch(/line 4: shard in \[\[space\]\] #1 needs the space's slug — add slug = "…"/);
    expect(refusal(`db = "x.duckdb"\n[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\n`)).toMatch(/line 1: unknown setting "db"/);
    expect(refusal(`[space]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\n`)).toMatch(/line 1: space must be written \[\[space\]\]/);
  });

  it('refuses duplicate spaces: the same slug, or the same address with the same key source', () => {
    const one = (extra: string) => `[[space]]\nbase_url = "https://a.example/api/v1"\n${extra}\n`;
    expect(refusal(one('api_key_env = "A"\nslug = "acme"') + one('api_key_env = "B"\nslug = "acme"'))).toMatch(
      /line 5: \[\[space\]\] #2 repeats \[\[space\]\] #1 \(line 1\): space acme — list each space once$/,
    );
    expect(refusal(one('api_key_env = "A"') + one('api_key_env = "A"'))).toMatch(/#2 repeats \[\[space\]\] #1 \(line 1\): the same base_url and api_key_env A/);
    // the same variable for another address is another space
    expect(parseConfigFile(one('api_key_env = "A"') + '[[space]]\nbase_url = "https://b.example/api/v1"\napi_key_env = "A"\n', FILE)).toHaveLength(2);
  });

  it('refuses what a space cannot run with', () => {
    expect(refusal('')).toMatch(/names no space/);
    expect(refusal(`[[space]]\napi_key_env = "A"\n`)).toMatch(/line 1: \[\[space\]\] #1 has no base_url/);
    expect(refusal(`[[space]]\nbase_url = "http://api.example.com/api/v1"\napi_key_env = "A"\n`)).toMatch(/line 2: .*must use https/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\n`)).toMatch(/line 1: \[\[space\]\] #1 names no key/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\napi_key_file = "k"\n`)).toMatch(/line 4: .*both api_key_env and api_key_file/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "np_abc def"\n`)).toMatch(/line 3: api_key_env .* is not an environment variable's name/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nmax_rpm = 0\n`)).toMatch(/line 4: max_rpm in \[\[space\]\] #1 must be a whole number above 0/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nmax_rpm = "45"\n`)).toMatch(/line 4: max_rpm/);
    expect(refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nslug = ""\n`)).toMatch(/line 4: slug in \[\[space\]\] #1 must be a non-empty string/);
  });

  it('reports a TOML syntax error at its line, in one line', () => {
    expect(refusal(`[[space]]\nbase_url = https://a.example/api/v1\n`)).toMatch(/^config \/etc\/convoduck\/spaces\.toml line 2: invalid value — fix the TOML/);
    expect(refusal(`[[space]]\nbase_url = "a"\nbase_url = "b"\n`)).toMatch(/line 3: .*redefine/);
  });

  it('names the right line past multi-line strings', () => {
    const message = refusal(`[[space]]\nbase_url = "https://a.example/api/v1"\napi_key_env = "A"\nslug = """\napi_key = 1\n"""\napi_key = "np_x"\n`);
    expect(message).toMatch(/line 7: api_key is refused/);
  });
});

describe('resolveConfigSpaces', () => {
  const dir = scratch('config').fileDir();
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads each key from its variable or file; never a flag', () => {
    write('staging.key', 'np_staging_key\n');
    const file = write(
      'ok.toml',
      `[[space]]\nbase_url = "http://127.0.0.1:1/api/v1"\napi_key_env = "PROD_KEY"\nmax_rpm = 30\n\n[[space]]\nbase_url = "http://127.0.0.1:2/api/v1"\napi_key_file = "staging.key"\nslug = "acme-staging"\n`,
    );
    expect(resolveConfigSpaces(file, { PROD_KEY: 'np_prod_key' })).toEqual([
      { label: '[[space]] #1 (line 1)', baseUrl: 'http://127.0.0.1:1/api/v1', apiKey: 'np_prod_key', maxRpm: 30, keySource: `environment variable PROD_KEY (config ${file} line 3)` },
      { label: 'space acme-staging', baseUrl: 'http://127.0.0.1:2/api/v1', apiKey: 'np_staging_key', slug: 'acme-staging', keySource: `the key file ${join(dir, 'staging.key')} (config ${file} line 8)` },
    ]);
  });

  it('names the line and the space when a variable is missing or a key file unreadable; never prints a key', () => {
    const file = write('missing.toml', `[[space]]\nbase_url = "http://127.0.0.1:1/api/v1"\nslug = "acme-prod"\napi_key_env = "PROD_KEY"\n`);
    expect(() => resolveConfigSpaces(file, {})).toThrow(
      new RegExp(`^config ${file} line 4: environment variable PROD_KEY \\(space acme-prod\\) is not set`),
    );
    expect(() => resolveConfigSpaces(file, { PROD_KEY: 'sk_live_123' })).toThrow(/line 4: environment variable PROD_KEY does not hold an API key/);
    const noFile = write('nofile.toml', `[[space]]\nbase_url = "http://127.0.0.1:1/api/v1"\napi_key_file = "absent.key"\n`);
    expect(() => resolveConfigSpaces(noFile, {})).toThrow(/line 3: cannot read the key file .*absent\.key of \[\[space\]\] #1 \(line 1\) \(ENOENT\)/);
    expect(() => resolveConfigSpaces(join(dir, 'none.toml'), {})).toThrow(/cannot read the config file .*none\.toml \(ENOENT\)/);
  });

  it('refuses the same key twice at one address under two variable names', () => {
    const file = write('twice.toml', `[[space]]\nbase_url = "http://127.0.0.1:1/api/v1"\napi_key_env = "A"\n[[space]]\nbase_url = "http://127.0.0.1:1/api/v1"\napi_key_env = "B"\n`);
    let message = '';
    try {
      resolveConfigSpaces(file, { A: 'np_same', B: 'np_same' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/line 4: \[\[space\]\] #2 holds the same key as \[\[space\]\] #1 \(line 1\)/);
    expect(message).not.toContain('np_same');
  });

  it('takes --config before CONVODUCK_CONFIG', () => {
    expect(configFilePath('a.toml', { CONVODUCK_CONFIG: 'b.toml' })).toBe('a.toml');
    expect(configFilePath(undefined, { CONVODUCK_CONFIG: 'b.toml' })).toBe('b.toml');
    expect(configFilePath(undefined, {})).toBeNull();
  });
});
