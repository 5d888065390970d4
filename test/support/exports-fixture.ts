// A database for the query/export/status tests: the simulator's generated dataset written
// through the store's own write functions (as a sync would), plus two runs with recorded
// errors, a few conversations without a detail, and one unusable detail body.
import { copyFileSync } from 'node:fs';
import { generateDataset, type Dataset } from '../../src/simulator/index.js';
import { Database } from '../../src/store/database.js';
import { setWatermark } from '../../src/store/watermark.js';
import { finishRun, startRun, type RunCounters, type SyncErrorRecord } from '../../src/store/sync-runs.js';
import { saveDetails, fetchedDetail, saveDimensions, saveListPage, type FetchedDetail } from '../../src/store/writes.js';

export interface Fixture {
  dataset: Dataset;
  now: Date;
  /** listed, never fetched */
  missingIds: string[];
  /** missing ones with a recorded detail error */
  failingIds: string[];
  /** fetched, body unusable */
  invalidIds: string[];
  /** not final (open) conversations of the dataset */
  openIds: string[];
  errors: SyncErrorRecord[];
}

export const FIXTURE_NOW = new Date('2026-11-06T12:00:00Z');

/** What the fixture holds, worked out without writing anything (the same every time). */
export function planFixture(): Fixture {
  const now = FIXTURE_NOW;
  const dataset = generateDataset({ seed: 7, conversations: 150, now, days: 6 });
  const conversations = dataset.conversations;
  // The oldest few: no detail (three of them with a recorded error), one with an unusable body.
  const oldest = [...conversations].reverse();
  const missingIds = oldest.slice(0, 5).map((c) => c.id);
  const failingIds = missingIds.slice(0, 3);
  const invalidIds = [oldest[5]!.id];
  const openIds = conversations.filter((c) => c.ended_at === null || c.outcome === null).map((c) => c.id);

  const fetchedAt = new Date(now.getTime() - 30_000);
  const errors: SyncErrorRecord[] = [
    ...failingIds.map((id, i) => ({
      stage: 'detail',
      conversationId: id,
      httpStatus: 500,
      message: `upstream error ${i}`,
      occurredAt: new Date(fetchedAt.getTime() + i * 1000),
    })),
    { stage: 'list', conversationId: null, httpStatus: 429, message: 'rate limited', occurredAt: fetchedAt },
  ];

  return { dataset, now, missingIds, failingIds, invalidIds, openIds, errors };
}

/** Writes the fixture `plan` describes into a new database at `dbPath`. */
export async function writeFixture(dbPath: string, plan: Fixture): Promise<void> {
  const { dataset, now, missingIds, invalidIds, errors } = plan;
  const space = dataset.space.slug;
  const conversations = dataset.conversations;
  const listedAt = new Date(now.getTime() - 60_000);
  const fetchedAt = new Date(now.getTime() - 30_000);
  await Database.with(dbPath, async (db) => {
    const first = await startRun(db, new Date(now.getTime() - 3_600_000), space, null, new Date(now.getTime() - 3_500_000));
    const none: RunCounters = { requests: 3, throttled: 0, retries: 0, conversationsListed: 0, detailsFetched: 0, detailsCoerced: 0, detailsSetAside: 0, conversationsDeleted: 0, errors: 0 };
    await finishRun(db, first, new Date(now.getTime() - 3_590_000), 'ok', none, null);

    const runId = await startRun(db, new Date(now.getTime() - 120_000), space, null, now);
    await saveDimensions(
      db,
      space,
      fetchedAt,
      dataset.agents.map((a) => ({ id: a.id, body: JSON.stringify(a) })),
      dataset.tools.map((t) => ({ id: t.id, body: JSON.stringify(t) })),
    );
    for (let i = 0; i < conversations.length; i += 50) {
      const page = conversations.slice(i, i + 50);
      await saveListPage(db, space, listedAt, page.map((c) => ({ id: c.id, body: JSON.stringify(c) })));
    }
    const details: FetchedDetail[] = conversations
      .filter((c) => !missingIds.includes(c.id))
      .map((c) =>
        invalidIds.includes(c.id)
          ? fetchedDetail(c.id, fetchedAt, JSON.stringify({ data: 42 }))
          : fetchedDetail(c.id, fetchedAt, JSON.stringify({ data: dataset.detail(c.id) })),
      );
    const counters: RunCounters = {
      requests: details.length + 5,
      throttled: 1,
      retries: 2,
      conversationsListed: conversations.length,
      detailsFetched: details.length,
      detailsCoerced: 0,
      detailsSetAside: 0,
      conversationsDeleted: 0,
      errors: errors.length,
    };
    await saveDetails(db, space, details, errors, runId, counters);
    await finishRun(db, runId, now, 'errors', counters, null);
    await setWatermark(db, now, space);
  });
}

/**
 * The fixture as a test file gets it: a copy of the database the global setup wrote once
 * (support/global-fixtures.ts), in the file's own folder, so a file may change its copy.
 */
export function copyFixture(built: string, dbPath: string): Fixture {
  copyFileSync(built, dbPath);
  return planFixture();
}
