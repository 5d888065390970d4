// What reports read beyond the public tables, derived over a lake from the exported tables by the
// store's own rules. Over one database these are tables written with the rows; here they are
// views, worked out at each read.
//
// raw_conversations has every column but the body (and listing_changed, the sync's own): the fetch
// time and finality come from conversation_load_state, a set-aside detail's reason from its
// detail_drift row, the derivation's state from conversations, whether it has a recording link
// from conversation_load_state, as the reports read it over both sources. raw_agent_details is
// there with no row: the lake holds no Get agent response (api_drift reads its coerced ones).

import { conversationFiguresSql } from '../store/figures.js';
import { termListSql } from '../store/search-index/tokenize.js';

const TURN_TERMS = `SELECT conversation_id, seq, coalesce(${termListSql('text')}, []) AS terms FROM transcript_turns`;

/** Table name → the SELECT that derives it (its columns cast to the native ones by the caller). */
export const DERIVED_VIEWS: readonly (readonly [string, string])[] = [
  ['conversation_figures', conversationFiguresSql()],
  [
    'raw_conversations',
    `SELECT l.conversation_id AS id, l.space, l.detail_fetched_at AS fetched_at, NULL AS body, s.invalid_reason, l.is_final,
            c.detail_state, NULL AS listing_changed, l.has_recording_link
     FROM conversation_load_state l
     LEFT JOIN conversations c ON c.id = l.conversation_id
     LEFT JOIN (SELECT conversation_id, min(note) AS invalid_reason FROM detail_drift WHERE kind = 'set_aside' GROUP BY conversation_id) s
       ON s.conversation_id = l.conversation_id`,
  ],
  ['raw_agent_details', `SELECT NULL AS agent_id, NULL AS space, NULL AS fetched_at, NULL AS body, NULL AS body_received WHERE false`],
  ['search_turns', `SELECT conversation_id, seq, len(terms) AS terms FROM (${TURN_TERMS})`],
  [
    'search_terms',
    `SELECT term, conversation_id, seq, count(*) AS tf, any_value(turn_terms) AS turn_terms
     FROM (SELECT conversation_id, seq, unnest(terms) AS term, len(terms) AS turn_terms FROM (${TURN_TERMS}))
     GROUP BY term, conversation_id, seq`,
  ],
];
