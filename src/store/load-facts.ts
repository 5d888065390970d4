// The load facts of a database written before they were columns (schema 20): each stored detail's
// has_recording_link read once from its body, so that conversation_load_state (load-state.ts)
// reads columns only.

import type { Database } from './database.js';
import { pages, stage } from './batch-sql.js';
import { bodiesInParts } from './derive.js';
import { LOAD_STATE_VIEW_SQL, RECORDING_LINK_COLUMN_SQL } from './load-state.js';
import { recordingLinkInText } from './normalise.js';

/**
 * has_recording_link of every stored detail, read from its body by the rule the write path uses
 * (JSON.parse, which takes what DuckDB's JSON reader refuses, a lone surrogate among it), page by
 * page. A body not kept (empty) says nothing: false.
 */
export async function fillRecordingLinks(db: Database): Promise<void> {
  await db.run(RECORDING_LINK_COLUMN_SQL);
  await db.run(`CREATE OR REPLACE TEMP TABLE _linked (id VARCHAR)`);
  await pages<{ id: string; body: string | null }>(
    db,
    'raw_conversations',
    (range) => `SELECT id, body FROM raw_conversations WHERE ${range}`,
    async (rows) => {
      const bodies = await bodiesInParts(db, rows.filter((r) => r.body === null).map((r) => r.id));
      const linked = rows.filter((r) => recordingLinkInText(r.body ?? bodies.get(r.id) ?? ''));
      if (linked.length === 0) return;
      await stage(db, '_linked_page', ['id'], linked.map((r) => [r.id]));
      await db.run(`INSERT INTO _linked SELECT id FROM _linked_page`);
    },
  );
  await db.run(`UPDATE raw_conversations SET has_recording_link = id IN (SELECT id FROM _linked)`);
  await db.run(`DROP TABLE _linked`);
  await db.run(LOAD_STATE_VIEW_SQL);
}
