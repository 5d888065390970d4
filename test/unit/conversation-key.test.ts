// conversationKeySql (src/store/conversation-key.ts) in DuckDB against the documented rule worked
// out in JavaScript, over ids in the spec's form and ids that drift from it.
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { conversationKeySql } from '../../src/store/conversation-key.js';
import { expectedConversationKey } from '../support/conversation-keys.js';

const IDS = [
  'b69fbbdc-20da-47b6-8b64-88e6979d7d83',
  'B69FBBDC-20DA-47B6-8B64-88E6979D7D83',
  '{b69fbbdc-20da-47b6-8b64-88e6979d7d83}',
  'b69fbbdc20da47b68b6488e6979d7d83',
  '00000000-0000-0000-0000-000000000000',
  'conv_42',
  '',
  ' b69fbbdc-20da-47b6-8b64-88e6979d7d83',
  'ünïcødé 👍🏽',
];

describe('conversation_key', () => {
  it('is the id when it is a canonical UUID, else the UUID of its MD5: no two ids share one', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const values = IDS.map((id) => `('${id.replaceAll("'", "''")}')`).join(', ');
      const reader = await connection.runAndReadAll(
        `SELECT id, (${conversationKeySql('id')})::VARCHAR AS k FROM (VALUES ${values}) t(id)`,
      );
      const keys = new Map(reader.getRowObjectsJS().map((r) => [r.id as string, r.k as string]));
      for (const id of IDS) expect(keys.get(id), JSON.stringify(id)).toBe(expectedConversationKey(id));
      expect(new Set(keys.values()).size).toBe(IDS.length);
      expect(keys.get(IDS[0]!)).toBe(IDS[0]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
