// What reports read beyond the public tables, derived over a lake from the public tables by the
// store's own rules. Over one database these are tables written with the rows; here they are
// views, worked out at each read.
//
// raw_conversations keeps only what the public tables say of each stored detail: fetched_at is
// the usable detail's (NULL for a set-aside one), invalid_reason the set-aside drift's note,
// is_final the conversation row's, and body is NULL. Where the database knows more, reports over
// a lake can differ: api_drift's first_seen/last_seen of a set-aside detail (empty), coverage's
// recordings_expected (0), and a detail fetched in progress whose list entry later showed the
// conversation ended (`stored` instead of `in_progress` until the next sync fetches it again).

import { conversationFiguresSql } from '../store/figures.js';
import { termListSql } from '../store/search-index/tokenize.js';

const TURN_TERMS = `SELECT conversation_id, seq, coalesce(${termListSql('text')}, []) AS terms FROM transcript_turns`;

/** Table name → the SELECT that derives it (its columns cast to the native ones by the caller). */
export const DERIVED_VIEWS: readonly (readonly [string, string])[] = [
  ['conversation_figures', conversationFiguresSql()],
  [
    'raw_conversations',
    `SELECT c.id, c.space, c.detail_fetched_at AS fetched_at, NULL AS body, s.invalid_reason, c.is_final, c.detail_state,
            NULL AS listing_changed
     FROM conversations c
     LEFT JOIN (SELECT conversation_id, min(note) AS invalid_reason FROM detail_drift WHERE kind = 'set_aside' GROUP BY conversation_id) s
       ON s.conversation_id = c.id
     WHERE c.detail_state IS NOT NULL`,
  ],
  ['search_turns', `SELECT conversation_id, seq, len(terms) AS terms FROM (${TURN_TERMS})`],
  [
    'search_terms',
    `SELECT term, conversation_id, seq, count(*) AS tf, any_value(turn_terms) AS turn_terms
     FROM (SELECT conversation_id, seq, unnest(terms) AS term, len(terms) AS turn_terms FROM (${TURN_TERMS}))
     GROUP BY term, conversation_id, seq`,
  ],
];
