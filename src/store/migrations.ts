// The steps that bring a database written by an older convoduck to SCHEMA_VERSION (schema.ts):
// database.ts runs the ones a file lacks when it opens it. Columns are added, never renamed; a
// table whose definition must change is copied (recreate()).

import { ALERT_REASON_MIGRATION, ALERT_VOLUME_MIGRATION, ALERTS_DDL } from './alert-tables.js';
import { ERASURES_DDL } from './erasures.js';
import { REDACTION_AT_REST_DDL } from './redaction-at-rest.js';
import { RECORDINGS_DDL } from './recordings.js';
import { SEARCH_MIGRATION } from './search-index/schema.js';
import { conversationKeySql } from './conversation-key.js';
import { CONVERSATION_FIGURES_DDL, conversationFiguresSql, turnFiguresSql, VISIT_ENTRY_SQL } from './figures.js';
import { AGENT_DETAIL_COLUMNS, BIG_TABLES, CONFIG_BODY_TABLES, VIEWS_SQL } from './schema.js';
import { LOAD_STATE_VIEW_SQL, RECORDING_LINK_COLUMN_SQL } from './load-state.js';
import { fillRecordingLinks } from './load-facts.js';
import type { Database } from './database.js';

/** Parts the figures of a stored database are worked out in (schemas 12 and 13). */
const TURN_FIGURES_PARTS = 16;

/** conversation_figures worked out from the stored rows part by part, so that each part's groups fit the writer's memory. */
const FIGURES_IN_PARTS = Array.from(
  { length: TURN_FIGURES_PARTS },
  (_, part) => `INSERT INTO conversation_figures ${conversationFiguresSql(`hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part}`)};`,
).join('\n');

/** A detail body shows a finished conversation: it has ended_at and outcome (as schema 2 computed it). */
const DETAIL_IS_FINAL = `((body->>'$.data.ended_at') IS NOT NULL AND (body->>'$.data.outcome') IS NOT NULL)`;

/** The sync_errors sentence of a short window (schema 7), and the wording before it. */
const SHORT_WINDOW_SQL = String.raw`'^listing (\S+?)\.\.(\S+) is short: the server counts (\d+) conversations?, (\d+) (?:was|were) served'`;
const SHORT_WINDOW_FORMER_SQL = String.raw`'^listing (\S+?)\.\.(\S+) returned (\d+) of (\d+) conversations'`;

/**
 * SQL that re-creates `table` from `ddl` and fills it from the old one, renamed `<table>_v<from>`
 * (by `fill`, given the old name; by default every column by name), then drops the old one: DuckDB
 * cannot drop a constraint or change a column's compression, so a migration that must copies.
 */
function recreate(table: string, from: number, ddl: string, fill = (old: string) => `INSERT INTO ${table} BY NAME SELECT * FROM ${old};`): string {
  const old = `${table}_v${from}`;
  return `ALTER TABLE ${table} RENAME TO ${old};
      ${ddl}
      ${fill(old)}
      DROP TABLE ${old};`;
}

/**
 * What brings a database at schema version (key - 1) to version key: SQL, or work over the database
 * where a fact must be read from the bodies by the write path's own rules (in JS), not DuckDB's.
 */
/** body_received of a configuration table (the body as received, when it differs). */
const BODY_RECEIVED_SQL = (table: string): string => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS body_received VARCHAR;`;

export type Migration = string | ((db: Database) => Promise<void>);

export const MIGRATIONS: Readonly<Record<number, Migration>> = {
  2: `ALTER TABLE raw_conversations ADD COLUMN IF NOT EXISTS is_final BOOLEAN;
      UPDATE raw_conversations SET is_final = ${DETAIL_IS_FINAL};`,
  // The agent's detail columns; those the list entry holds are filled from it at once, behavior
  // and workflow by the next sync's Get agent (every stored agent counts as new to it). The later
  // step's body_received comes here too: an upgrade is one transaction, and DuckDB cannot commit
  // an ALTER of a table that an UPDATE in it changed.
  3: `${AGENT_DETAIL_COLUMNS.map(([name, type]) => `ALTER TABLE agents ADD COLUMN IF NOT EXISTS ${name} ${type};`).join('\n')}
      ${BODY_RECEIVED_SQL('agents')}
      UPDATE agents SET
        first_message = json_extract(body, '$.first_message'),
        knowledge_ids = json_extract(body, '$.knowledge_ids'),
        knowledge_folder_ids = json_extract(body, '$.knowledge_folder_ids'),
        phone_number_ids = json_extract(body, '$.phone_number_ids'),
        last_synced_at = try_cast(body->>'$.last_synced_at' AS TIMESTAMPTZ);`,
  // One watermark per space (listing_watermarks, created by SCHEMA_SQL). The single watermark of
  // a one-space database belongs to the space its rows carry; with several, to the run that set it.
  4: `INSERT INTO listing_watermarks (space, listed_to)
      SELECT space, listed_to FROM (
        SELECT coalesce(
                 (SELECT any_value(space) FROM raw_listed_conversations HAVING count(DISTINCT space) = 1),
                 (SELECT arg_max(space, run_id) FROM sync_runs
                  WHERE space IS NOT NULL AND window_to = try_cast(m.value AS TIMESTAMPTZ)),
                 (SELECT arg_max(space, listed_at) FROM raw_listed_conversations)) AS space,
               try_cast(m.value AS TIMESTAMPTZ) AS listed_to
        FROM convoduck_meta m WHERE m.key = 'listing_watermark')
      WHERE space IS NOT NULL AND listed_to IS NOT NULL;
      DELETE FROM convoduck_meta WHERE key = 'listing_watermark';`,
  // The big tables lose their PRIMARY KEY (see BIG_TABLES). DuckDB cannot drop a constraint: each
  // table is copied into one defined without it. The child tables are copied too: the copy lays
  // them out in the row groups a writer uses (database.ts), whose checkpoints load a fraction of
  // the metadata.
  5: Object.entries(BIG_TABLES)
    .filter(([table]) => table !== 'detail_drift')
    .map(([table, ddl]) => recreate(table, 4, ddl()))
    .join('\n'),
  // The raw bodies, compressed (see COMPRESSED): a column's compression is fixed when its table is created.
  6: (['raw_listed_conversations', 'raw_conversations'] as const).map((table) => recreate(table, 5, BIG_TABLES[table]())).join('\n'),
  // Bodies kept as received, as text: DuckDB's JSON type refuses what the API may send (a lone
  // UTF-16 surrogate escape). Details already stored were read by the SQL rules: those set aside
  // are fetched once more under today's, the others count as exact.
  7: `${(['raw_listed_conversations', 'raw_conversations'] as const).map((table) => recreate(table, 6, BIG_TABLES[table]())).join('\n')}
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS details_coerced INTEGER DEFAULT 0;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS details_set_aside INTEGER DEFAULT 0;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS conversations_deleted INTEGER DEFAULT 0;
      ALTER TABLE conversations ADD COLUMN IF NOT EXISTS detail_state VARCHAR;
      ALTER TABLE conversations ADD COLUMN IF NOT EXISTS deleted_at TIMESTAMPTZ;
      UPDATE raw_conversations SET
        detail_state = CASE WHEN invalid_reason IS NULL THEN 'exact' ELSE 'set_aside' END,
        listing_changed = invalid_reason IS NOT NULL;
      UPDATE conversations c SET detail_state = r.detail_state FROM raw_conversations r WHERE r.id = c.id;`,
  // Listing gaps as rows (listing_gaps, created by SCHEMA_SQL) from the sentences earlier versions
  // wrote to sync_errors, in both wordings: the one place a gap is ever read out of a message.
  8: `INSERT INTO listing_gaps
      SELECT run_id, space,
             CASE WHEN gap.from_text = 'beginning' THEN NULL ELSE try_cast(gap.from_text AS TIMESTAMPTZ) END,
             try_cast(gap.to_text AS TIMESTAMPTZ), gap.counted::INTEGER, gap.served::INTEGER, occurred_at
      FROM (
        SELECT e.run_id, r.space, e.occurred_at,
               CASE WHEN regexp_matches(e.message, ${SHORT_WINDOW_SQL})
                    THEN regexp_extract(e.message, ${SHORT_WINDOW_SQL}, ['from_text', 'to_text', 'counted', 'served'])
                    ELSE regexp_extract(e.message, ${SHORT_WINDOW_FORMER_SQL}, ['from_text', 'to_text', 'served', 'counted']) END AS gap
        FROM sync_errors e LEFT JOIN sync_runs r USING (run_id)
        WHERE e.stage = 'listing'
          AND (regexp_matches(e.message, ${SHORT_WINDOW_SQL}) OR regexp_matches(e.message, ${SHORT_WINDOW_FORMER_SQL})))
      WHERE try_cast(gap.to_text AS TIMESTAMPTZ) IS NOT NULL
        AND (gap.from_text = 'beginning' OR try_cast(gap.from_text AS TIMESTAMPTZ) IS NOT NULL);`,
  // The erasure log and tombstones of `forget` and retention (src/store/erasures.ts).
  9: ERASURES_DDL,
  10: REDACTION_AT_REST_DDL, // the spaces redacted at rest (src/store/redaction-at-rest.ts)
  // The search index (src/store/search-index/schema.ts), built from the turns already stored.
  11: SEARCH_MIGRATION,
  // The figures of each turn and conversation (figures.ts) from the rows already stored, the
  // turns' part by part: each part's windows are sorted in memory (or spilled) at once.
  12: `${recreate('transcript_turns', 11, BIG_TABLES.transcript_turns(), (old) =>
        Array.from({ length: TURN_FIGURES_PARTS }, (_, part) =>
          `INSERT INTO transcript_turns BY NAME ${turnFiguresSql(
            `(SELECT conversation_id, seq, spoken_at, speaker, text, node_key FROM ${old} WHERE hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part})`,
          )};`).join('\n'))}
      ${CONVERSATION_FIGURES_DDL}
      ${FIGURES_IN_PARTS}`,
  // Each node visit's entry number (figures.ts) from the visits already stored, part by part.
  13: recreate('node_visits', 12, BIG_TABLES.node_visits(), (old) =>
    Array.from({ length: TURN_FIGURES_PARTS }, (_, part) =>
      `INSERT INTO node_visits (conversation_id, seq, entered_at, node_key, entry_no)
         SELECT conversation_id, seq, entered_at, node_key, ${VISIT_ENTRY_SQL}
         FROM ${old} WHERE hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part};`).join('\n')),
  // Each conversation's key (conversation-key.ts) beside its id, in the conversation and its child
  // rows. Tables copied, not updated: an UPDATE of every row rewrites it slower than a copy. The
  // tables migrations 12 and 13 made already have the column (empty): the copy takes every other.
  14: [
    ...(['conversations', 'transcript_turns', 'tool_calls', 'node_visits'] as const).map((table) => [table, BIG_TABLES[table]()] as const),
    ['conversation_figures', CONVERSATION_FIGURES_DDL] as const,
  ]
    .map(([table, ddl]) =>
      recreate(table, 13, ddl, (old) =>
        `INSERT INTO ${table} BY NAME
        SELECT COLUMNS(c -> c <> 'conversation_key'), ${conversationKeySql(table === 'conversations' ? 'id' : 'conversation_id')} AS conversation_key
        FROM ${old};`),
    )
    .join('\n'),
  // conversations_named: the conversations with their agent's name (a new database gets it from migrate()).
  15: VIEWS_SQL,
  16: ALERTS_DDL, // the alert tables (src/store/alert-tables.ts)
  // Listing follows the server's timeline. A watermark set on this machine's clock resumes from the
  // newest started_at the server had sent up to it (a lower point only lists more); a space with
  // nothing stored under it is listed in full once.
  17: `ALTER TABLE listing_watermarks ADD COLUMN IF NOT EXISTS listed_newest TIMESTAMPTZ;
      UPDATE listing_watermarks w SET listed_newest = (
        SELECT max(c.started_at) FROM conversations c WHERE c.space = w.space AND c.started_at <= w.listed_to);
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS clock_skew_seconds DOUBLE;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS newest_started_at TIMESTAMPTZ;`,
  // the downloaded recordings (src/store/recordings.ts), and whether an erasure removed one
  18: `${RECORDINGS_DDL}
      ALTER TABLE erasures ADD COLUMN IF NOT EXISTS recording_deleted BOOLEAN;`,
  // the load facts of each stored detail, exported beside the conversation tables (load-state.ts);
  // the view reads a column that 20 fills
  19: `${RECORDING_LINK_COLUMN_SQL}
      ${LOAD_STATE_VIEW_SQL}`,
  // whether each stored detail carries a recording link, read once from its body (load-facts.ts)
  20: fillRecordingLinks,
  // what the server counted beyond what it served in each run's window (count-excess.ts); NULL
  // for the runs before, which never measured it
  21: `ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS server_count_excess INTEGER;`,
  22: ALERT_VOLUME_MIGRATION, // each evaluation's volume, for the counts a notification gives
  23: ALERT_REASON_MIGRATION, // why each evaluation was skipped, or a crossing stayed ok
  // the configuration bodies as received when DuckDB's JSON reader refuses them; the bodies stored
  // before were read by it as received, so theirs stay NULL
  24: CONFIG_BODY_TABLES.map(BODY_RECEIVED_SQL).join('\n'),
  // a run that found its file damaged and put the last-good copy in its place (restore-last-good.ts)
  25: `ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS restored_from_copy_at TIMESTAMPTZ;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS damaged_file_kept_as VARCHAR;`,
};
