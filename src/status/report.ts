// What `convoduck status` reports: the shape of its JSON (`status --json`) and what the text
// rendering (src/cli/status/render.ts) reads.

import type { PUBLIC_TABLES } from '../store/schema.js';
import type { ReadOptions } from '../store/read-only.js';

export interface RunStatus {
  runId: number;
  startedAt: string;
  endedAt: string | null;
  /** as recorded: running, ok, errors, failed, interrupted */
  status: string;
  /** status `running` but no sync process holds the database: the run was killed */
  stale: boolean;
  space: string | null;
  windowFrom: string | null;
  windowTo: string | null;
  durationSec: number | null;
  requests: number;
  throttled: number;
  retries: number;
  conversationsListed: number;
  detailsFetched: number;
  errors: number;
  message: string | null;
  /** the server's clock (its Date header) minus this machine's, in seconds; null: not measured */
  clockSkewSeconds: number | null;
  /** the newest started_at the run's listing served */
  newestStartedAt: string | null;
  /** the run found the file damaged and put its last-good copy, taken then, in its place; null: it did not */
  restoredFromCopyAt: string | null;
  /** where that run kept the damaged file */
  damagedFileKeptAs: string | null;
}

export interface ErrorGroup {
  stage: string;
  httpStatus: number | null;
  count: number;
  conversations: number;
  lastAt: string;
  lastMessage: string;
}

/** Conversations a run's listing found counted but not served, that no later run has listed again. */
export interface ListingGapStatus {
  /** the run that found the gap */
  runId: number;
  /** span of the run's short windows (null: from the beginning of history) */
  from: string | null;
  to: string;
  /** counted by the server minus served, over those windows */
  missing: number;
  counted: number;
  served: number;
  /** short windows the span covers */
  windows: number;
  /** whether a plain `convoduck sync` (default --overlap) lists the span again */
  nextSyncRelists: boolean;
}

/** A space whose server counts more conversations than it serves, trusted by its latest listed run. */
export interface CountOffStatus {
  space: string;
  /** the run that trusted what was served */
  runId: number;
  /** conversations the server counted in that run's window beyond those it served */
  excess: number;
  /** the run's window (null: from the beginning of history) */
  from: string | null;
  to: string;
}

/** One space of the database: how far its listing got, its last run, what it still has to fetch. */
export interface SpaceStatus {
  space: string;
  /** conversations of the space started before this were all listed (null before its first full listing) */
  watermark: string | null;
  lastRun: { runId: number; status: string; stale: boolean; startedAt: string; endedAt: string | null } | null;
  listed: number;
  stored: number;
  /** listed, no detail stored yet: the next sync fetches it (as details.pending and a sync's detailsPending) */
  pending: number;
  /** stored, not final yet: fetched again once it ends (as openConversations.count) */
  open: number;
}

export interface StatusReport {
  database: { path: string; sizeBytes: number; schemaVersion: number | null };
  /** the spaces shown (every space of the database, or those of --space), by slug */
  spaces: SpaceStatus[];
  /** a sync process currently holding the sync lock, or null */
  syncRunning: { pid: number } | null;
  /** conversations started before this were all listed, in every space shown (null before the first full listing) */
  watermark: string | null;
  /** windows whose listing did not add up, per run, until a later run lists them again */
  listingGaps: ListingGapStatus[];
  /** spaces whose server's count is off for good, as their latest listed run found it (sync_runs.server_count_excess) */
  countOff: CountOffStatus[];
  runs: RunStatus[];
  tables: Record<(typeof PUBLIC_TABLES)[number], number>;
  details: {
    /** conversations the list endpoint returned */
    listed: number;
    /** usable detail bodies stored */
    stored: number;
    /** listed, never fetched */
    missing: number;
    /** fetched, but set aside: the body cannot be stored as rows (raw body kept, reason in raw_conversations.invalid_reason) */
    setAside: number;
    /** stored, some values coerced by a documented rule */
    coerced: number;
    /** deleted at the source (a 404, or missing from a window listed again); never fetched again */
    deleted: number;
    /** without a usable detail and with a recorded error */
    failing: number;
    /** listed, no detail stored yet (missing, or set aside and its list entry changed): the next sync fetches it; as a sync's detailsPending */
    pending: number;
    /** stored / listed (null when nothing is listed) */
    coverage: number | null;
  };
  /** recordings the stored details promise (a recording_url), how many are stored, missing, expired, and tried at all */
  recordings: { expected: number; stored: number; missing: number; expired: number; tried: number };
  openConversations: { count: number; oldestStartedAt: string | null; olderThan24h: number };
  newestConversationAt: string | null;
  errors: {
    total: number;
    /** errors of the runs in `runs`, grouped */
    recent: ErrorGroup[];
  };
}

export interface StatusOptions extends ReadOptions {
  /** how many runs to show (default 5) */
  runs?: number;
  /** only these spaces (every table read as if the database held only their rows) */
  spaces?: readonly string[];
  now?: () => Date;
}
