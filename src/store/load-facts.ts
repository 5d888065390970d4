// The load facts of a database written before they were columns (schema 20): each stored detail's
// has_recording_link read once from its body, so that conversation_load_state (load-state.ts)
// reads columns only.

import type { Database } from './database.js';
import { stage } from './batch-sql.js';
import { bodiesInParts } from './derive.js';
import { LOAD_STATE_VIEW_SQL, RECORDING_LINK_COLUMN_SQL } from './load-state.js';
import { recordingLinkInText } from './normalise.js';

/**
 * has_recording_link of every stored detail, read from its body by the rule the write path uses
 * (JSON.parse, which takes what DuckDB's JSON reader refuses, a lone surrogate among it). The
 * bodies are streamed, not paged by rowid: inside the upgrade's transaction, rows an earlier step
 * copied have rowids far past the table's end. A body kept in parts is read whole afterwards; a
 * body not kept (empty) says nothing: false.
 */
export async function fillRecordingLinks(db: Database): Promise<void> {
  await db.run(RECORDING_LINK_COLUMN_SQL);
  const linked: string[] = [];
  const parted: string[] = [];
  const result = await db.connection.stream(`SELECT id, body FROM raw_conversations`);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    for (const [id, body] of chunk.getRows() as [string, string | null][]) {
      if (body === null) parted.push(id);
      else if (recordingLinkInText(body)) linked.push(id);
    }
  }
  for (let i = 0; i < parted.length; i += PARTED_AT_ONCE) {
    const bodies = await bodiesInParts(db, parted.slice(i, i + PARTED_AT_ONCE));
    for (const [id, body] of bodies) if (recordingLinkInText(body)) linked.push(id);
  }
  await stage(db, '_linked', ['id'], linked.map((id) => [id]));
  await db.run(`UPDATE raw_conversations SET has_recording_link = id IN (SELECT id FROM _linked)`);
  await db.run(`DROP TABLE _linked`);
  await db.run(LOAD_STATE_VIEW_SQL);
}

/** Bodies kept in parts read at once: each may be megabytes. */
const PARTED_AT_ONCE = 20;
