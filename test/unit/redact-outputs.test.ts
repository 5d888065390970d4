// The column rules of --redact (src/redact/outputs.ts): which names are redacted and how each
// value comes out; the DuckDB functions give the same as the JS path.
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { keyedHash, redactedSql, redactValue, registerRedaction, rowRedactor, ruleOf } from '../../src/redact/index.js';

const redaction = { key: Buffer.from('k'.repeat(32)) };

describe('redaction of outputs by column name', () => {
  it('knows the columns by name, in any case, and nothing else', () => {
    expect(ruleOf('TEXT')).toBe('text');
    expect(ruleOf('session_ref')).toBe('hash');
    expect(ruleOf('page_url')).toBe('url');
    expect(ruleOf('speaker')).toBeUndefined();
    expect(ruleOf('constructor')).toBeUndefined();
    expect(rowRedactor(['id', 'speaker'], redaction)).toBeNull();
  });

  it('replaces data in text and JSON text, hashes session_ref members, cleans a URL query', () => {
    const body = '{"session_ref":"ws_a\\"b","page_url":"https://x.de/a?email=max%40web.de&step=2","t":"call 030 1234567"}';
    const out = redactValue('text', body, redaction);
    expect(out).toBe(`{"session_ref":"${keyedHash('ws_a"b', redaction.key)}","page_url":"https://x.de/a?email=[email]&step=2","t":"call [phone]"}`);
    expect(JSON.parse(out)).toBeTruthy();
    expect(redactValue('url', 'https://x.de/c?phone=%2B49%2030%201234567', redaction)).toBe('https://x.de/c?phone=[phone]');
    expect(redactValue('hash', 'ws_1', redaction)).toBe(keyedHash('ws_1', redaction.key));
    const row = rowRedactor(['id', 'text', 'session_ref'], redaction)!(['c1', 'mail max@web.de', null]);
    expect(row).toEqual(['c1', 'mail [email]', null]);
  });

  it('the SQL functions give what the JS path gives, NULL for NULL, JSON kept JSON', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    registerRedaction(connection, redaction);
    const reader = await connection.runAndReadAll(
      `SELECT ${redactedSql('text', `'mail max@web.de'`)} AS a, ${redactedSql('session_ref', 'NULL')} AS b,
              ${redactedSql('session_ref', `'ws_1'`)} AS c, ${redactedSql('output_redacted', `'{"e":"a@b.de"}'::JSON`, true)} AS d,
              ${redactedSql('speaker', `'agent'`)} AS e`,
    );
    expect(reader.getRowsJS()[0]).toEqual(['mail [email]', null, keyedHash('ws_1', redaction.key), '{"e":"[email]"}', 'agent']);
    expect(reader.columnTypeJson(3)).toMatchObject({ alias: 'JSON' });
    connection.closeSync();
    instance.closeSync();
  });
});
