// keyedHash for session_ref, and where its key comes from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyedHash, loadRedactionKey, RedactionKeyError } from '../src/redact/index.js';
import { InvalidInputError } from '../src/shared/errors.js';

const KEY = 'a3f1c2e4b5d6978812ab34cd56ef7890';

describe('keyedHash', () => {
  it('is HMAC-SHA256 (RFC 4231 test case 2)', () => {
    expect(keyedHash('what do ya want for nothing?', 'Jefe', { prefix: '', hexLength: 64 })).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
  it('is stable, prefixed and truncated, and differs by key and by value', () => {
    const h = keyedHash('+49 151 23456789', KEY);
    expect(h).toMatch(/^kh_[0-9a-f]{20}$/);
    expect(keyedHash('+49 151 23456789', KEY)).toBe(h);
    expect(keyedHash('+49 151 23456789', Buffer.from(KEY))).toBe(h);
    expect(keyedHash('+49 151 23456788', KEY)).not.toBe(h);
    expect(keyedHash('+49 151 23456789', `${KEY}x`)).not.toBe(h);
    expect(keyedHash('x', KEY, { prefix: 'sr_', hexLength: 32 })).toMatch(/^sr_[0-9a-f]{32}$/);
    expect(() => keyedHash('x', KEY, { hexLength: 8 })).toThrow(RangeError);
  });
});

describe('loadRedactionKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoduck-redact-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the key from the environment or a file, trimmed', () => {
    expect(loadRedactionKey({ CONVODUCK_REDACT_KEY: ` ${KEY}\n` }).toString()).toBe(KEY);
    const file = join(dir, 'key');
    writeFileSync(file, `${KEY}\n`);
    expect(loadRedactionKey({ CONVODUCK_REDACT_KEY_FILE: file }).toString()).toBe(KEY);
  });

  const short = 'tooshort-secret-1234';
  it.each([
    [{}, /none is set/],
    [{ CONVODUCK_REDACT_KEY: short }, /too short/],
    [{ CONVODUCK_REDACT_KEY: `${KEY}\n${KEY}` }, /more than one line/],
    [{ CONVODUCK_REDACT_KEY: KEY, CONVODUCK_REDACT_KEY_FILE: '/x' }, /both/],
    [{ CONVODUCK_REDACT_KEY_FILE: '/nonexistent/convoduck-key' }, /cannot read the key file .*ENOENT/],
  ])('refuses %j with one line that never shows the key', (env, message) => {
    let caught: unknown;
    try {
      loadRedactionKey(env as NodeJS.ProcessEnv);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RedactionKeyError);
    expect(caught).toBeInstanceOf(InvalidInputError); // the CLI maps it to exit 2 as it is
    const text = (caught as Error).message;
    expect(text).toMatch(message);
    expect(text).toMatch(/^[^\n]+ — [^\n]+$/);
    expect(text).not.toContain(short);
    expect(text).not.toContain(KEY);
  });

  it('does not show a short key read from a file either', () => {
    const file = join(dir, 'short');
    writeFileSync(file, short);
    expect(() => loadRedactionKey({ CONVODUCK_REDACT_KEY_FILE: file })).toThrow(/too short/);
    expect(() => loadRedactionKey({ CONVODUCK_REDACT_KEY_FILE: file })).not.toThrow(new RegExp(short));
  });
});
