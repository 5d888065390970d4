// `convoduck status`: what the database holds and how the crawl is doing, read from the database
// itself through the named queries of queries.ts and listing_gaps, and put together as one report.

import { statSync } from 'node:fs';
import type { Database } from '../store/database.js';
import { combineShortWindows, openListingGaps, type ListingGap } from '../store/listing-gaps.js';
import { withReadOnlyDatabase } from '../store/read-only.js';
import { limitToSpaces } from '../store/space-scope.js';
import { syncLockHolder } from '../store/sync-lock.js';
import { DEFAULT_OVERLAP_MS, getWatermark, listListedNewest, listWatermarks } from '../store/watermark.js';
import { formatInstant } from '../shared/time.js';
import { recordingCounts, type RecordingCounts } from '../store/recordings.js';
import { countsOff } from '../store/count-excess.js';
import {
  detailCoverage,
  errorGroups,
  liveRunIds,
  newestConversationAt,
  openConversations,
  recentRuns,
  schemaVersion,
  spaceStatuses,
  tableCounts,
} from './queries.js';
import type { ListingGapStatus, StatusOptions, StatusReport } from './report.js';

export async function readStatus(db: Database, dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  const now = options.now?.() ?? new Date();
  const pid = syncLockHolder(dbPath);
  await limitToSpaces(db, options.spaces ?? []);

  const tables = await tableCounts(db);
  const watermark = await getWatermark(db);
  const watermarks = await listWatermarks(db);
  // an incremental sync resumes from the newest conversation the server had sent, not from the window's end
  const resumePoints = await listListedNewest(db);
  const listingGaps = gapsByRun(await openListingGaps(db), (space) => (space === null ? watermark : (resumePoints.get(space) ?? null)));
  const live = await liveRunIds(db, pid !== null);
  const runs = await recentRuns(db, options.runs ?? 5, now, live);
  // "open for a day" is about the server's conversations: measured on its clock when a run read it
  const skewSeconds = runs.find((r) => r.clockSkewSeconds !== null)?.clockSkewSeconds ?? 0;
  const serverNow = new Date(now.getTime() + skewSeconds * 1000);
  const oldestRunShown = runs.length > 0 ? Math.min(...runs.map((r) => r.runId)) : null;

  return {
    database: { path: dbPath, sizeBytes: statSync(dbPath).size, schemaVersion: await schemaVersion(db) },
    spaces: await spaceStatuses(db, watermarks, live),
    syncRunning: pid === null ? null : { pid },
    watermark: watermark ? formatInstant(watermark) : null,
    listingGaps,
    countOff: (await countsOff(db)).map((c) => ({
      space: c.space,
      runId: c.runId,
      excess: c.excess,
      from: c.from === null ? null : formatInstant(c.from),
      to: formatInstant(c.to),
    })),
    runs,
    tables,
    details: await detailCoverage(db),
    recordings: totalRecordings(await recordingCounts(db)),
    openConversations: await openConversations(db, serverNow),
    newestConversationAt: await newestConversationAt(db),
    errors: { total: tables.sync_errors, recent: await errorGroups(db, oldestRunShown) },
  };
}

/** The open gaps of each run as one span, newest run first, and whether a plain sync lists it again. */
function gapsByRun(gaps: ListingGap[], watermarkOf: (space: string | null) => Date | null): ListingGapStatus[] {
  const runs = [...new Set(gaps.map((g) => g.runId))].sort((a, b) => b - a);
  return runs.map((runId) => {
    const own = gaps.filter((g) => g.runId === runId);
    const span = combineShortWindows(own)!;
    const watermark = watermarkOf(own[0]!.space);
    return {
      runId,
      from: span.fromMs === null ? null : formatInstant(new Date(span.fromMs)),
      to: formatInstant(new Date(span.toMs)),
      missing: span.counted - span.served,
      counted: span.counted,
      served: span.served,
      windows: own.length,
      // A sync without a watermark lists everything; an incremental one starts an overlap before it.
      nextSyncRelists: watermark === null || (span.fromMs !== null && span.fromMs >= watermark.getTime() - DEFAULT_OVERLAP_MS),
    };
  });
}

function totalRecordings(perSpace: RecordingCounts[]): StatusReport['recordings'] {
  const sum = (k: 'expected' | 'stored' | 'missing' | 'expired' | 'tried') => perSpace.reduce((n, r) => n + r[k], 0);
  return { expected: sum('expected'), stored: sum('stored'), missing: sum('missing'), expired: sum('expired'), tried: sum('tried') };
}

/** Opens the database read-only (waiting for a sync's commit if needed) and reads its status. */
export async function getStatus(dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  return withReadOnlyDatabase(dbPath, options, (db) => readStatus(db, dbPath, options));
}
