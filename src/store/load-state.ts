// conversation_load_state: of each stored detail, the load facts the reports read beside the
// public rows (when it was fetched, whether the conversation had ended, whether it carries a
// recording link), as a view over raw_conversations' columns. Each fact is decided once, when the
// detail is written (normalise.ts): a body is never parsed on read, so no body, however broken,
// can fail a read. Exported like the conversation tables, so that reports over a lake read what
// they read over the database. The link itself is signed and stays in the database: only whether
// there is one is said.

export const LOAD_STATE_VIEW_SQL = `
CREATE OR REPLACE VIEW conversation_load_state AS
SELECT r.id AS conversation_id, r.space, r.fetched_at AS detail_fetched_at, r.is_final,
       coalesce(r.has_recording_link, false) AS has_recording_link
FROM raw_conversations r;
`;

/** The column a database written before it lacks (filled by load-facts.ts). */
export const RECORDING_LINK_COLUMN_SQL = `ALTER TABLE raw_conversations ADD COLUMN IF NOT EXISTS has_recording_link BOOLEAN;`;
