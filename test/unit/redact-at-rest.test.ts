// redactBody: a detail cleaned as parsed JSON gives, through the normaliser, the rows of the
// cleaned value whether read from the value or from its text (what `rebuild` reads), with ids
// exact, session_ref hashed at any depth, and no datum left anywhere in the text.
import { describe, expect, it } from 'vitest';
import { keyedHash, redactBody, redactBodyText } from '../../src/redact/index.js';
import { generateDataset } from '../../src/simulator/index.js';
import { normaliseDetail, normaliseDetailText } from '../../src/store/normalise.js';

const redaction = { key: Buffer.from('k'.repeat(40)) };
const NOW = new Date('2026-11-01T12:00:00Z');

describe('redactBody', () => {
  const ds = generateDataset({ seed: 27, conversations: 200, now: NOW });

  it('leaves no datum of the truth in a detail, and the normaliser reads the text as it reads the value', () => {
    let data = 0;
    for (const r of ds.records) {
      const detail = { data: ds.detail(r.id) };
      const cleaned = redactBody(detail, redaction);
      const text = JSON.stringify(cleaned);
      for (const f of ds.personalData(r.id)!.found) {
        if (f.kind === 'name') continue;
        data++;
        expect(text).not.toContain(JSON.stringify(f.value).slice(1, -1));
      }
      const fromValue = normaliseDetail(cleaned, r.id);
      expect(fromValue.usable, r.id).toBe(true);
      expect(normaliseDetailText(text, r.id)).toEqual(fromValue);
      // the same conversation, rows and all: only text changed
      const clear = normaliseDetail(detail, r.id);
      if (clear.usable && fromValue.usable) {
        expect(fromValue.turns.map((t) => [t.at, t.speaker, t.node_key])).toEqual(clear.turns.map((t) => [t.at, t.speaker, t.node_key]));
        expect(fromValue.toolCalls.length).toBe(clear.toolCalls.length);
        expect(fromValue.fields.session_ref).toBe(clear.fields.session_ref === null ? null : keyedHash(clear.fields.session_ref, redaction.key));
      }
    }
    expect(data).toBeGreaterThan(100);
  });

  it('keeps ids and field names, hashes session_ref at any depth, cleans URLs and numbers, and leaves the input alone', () => {
    const body = JSON.parse(
      '{"id":"c_1","agent_id":"a_1","session_ref":"+49 30 1234567","__proto__":{"x":"max@web.de"},' +
        '"page_url":"https://shop.example/p?email=max%40web.de&step=2","card":4111111111111111,"count":12,' +
        '"tool_calls":[{"tool_id":"t_1","input_redacted":{"session_ref":"ws_1","to":["ann@example.com"]}}]}',
    ) as Record<string, unknown>;
    const before = JSON.stringify(body);
    const cleaned = JSON.stringify(redactBody(body, redaction));
    expect(JSON.stringify(body)).toBe(before);
    expect(JSON.parse(cleaned)).toEqual({
      id: 'c_1',
      agent_id: 'a_1',
      session_ref: keyedHash('+49 30 1234567', redaction.key),
      ['__proto__']: { x: '[email]' },
      page_url: 'https://shop.example/p?email=[email]&step=2',
      card: '[card]',
      count: 12,
      tool_calls: [{ tool_id: 't_1', input_redacted: { session_ref: keyedHash('ws_1', redaction.key), to: ['[email]'] } }],
    });
  });

  it('cleans a body that is not JSON as text', () => {
    const text = '{"data": {"session_ref": "ws_9", "summary": "call +49 30 1234567"';
    const cleaned = redactBodyText(text, redaction);
    expect(cleaned).toBe(`{"data": {"session_ref": "${keyedHash('ws_9', redaction.key)}", "summary": "call [phone]"`);
  });
});
