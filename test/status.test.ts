// `convoduck status`: counts and coverage read from a real database built from the
// simulator's dataset, as JSON and as text.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { getStatus } from '../src/status/read-status.js';
import type { StatusReport } from '../src/status/report.js';
import { renderStatus } from '../src/cli/status/render.js';
import { Database } from '../src/store/database.js';
import { PUBLIC_TABLES } from '../src/store/schema.js';
import { startRun } from '../src/store/sync-runs.js';
import { runCli } from './support/cli.js';
import { copyFixture, type Fixture } from './support/exports-fixture.js';
import { formatInstant } from '../src/shared/time.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('status');

let dir: string;
let dbPath: string;
let fixture: Fixture;

beforeAll(() => {
  dir = fileDir();
  dbPath = join(dir, 'fixture.duckdb');
  fixture = copyFixture(inject('exportsFixture'), dbPath);
});

describe('status', () => {
  it('--json reports runs, watermark, row counts, detail coverage, open conversations and errors', async () => {
    const res = await runCli(['status', '--db', dbPath, '--json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const s = JSON.parse(res.stdout) as StatusReport;

    const counts = await Database.with(
      dbPath,
      (db) => db.one<Record<string, number>>(`SELECT ${PUBLIC_TABLES.map((t) => `(SELECT count(*)::INTEGER FROM ${t}) AS ${t}`).join(', ')}`),
      { readOnly: true },
    );
    expect(s.tables).toEqual(counts);
    expect(s.tables.conversations).toBe(150);
    expect(s.tables.agents).toBe(fixture.dataset.agents.length);

    expect(s.watermark).toBe(formatInstant(fixture.now));
    expect(s.syncRunning).toBeNull();
    expect(s.runs.map((r) => [r.runId, r.status, r.stale])).toEqual([
      [2, 'errors', false],
      [1, 'ok', false],
    ]);
    expect(s.runs[0]).toMatchObject({
      conversationsListed: 150,
      detailsFetched: 145,
      errors: 4,
      throttled: 1,
      retries: 2,
      durationSec: 120,
      endedAt: formatInstant(fixture.now),
    });

    const open = fixture.openIds.length;
    expect(open).toBeGreaterThan(0);
    expect(s.details).toEqual({
      listed: 150,
      stored: 150 - fixture.missingIds.length - fixture.invalidIds.length,
      missing: fixture.missingIds.length,
      setAside: fixture.invalidIds.length,
      coerced: 0,
      deleted: 0,
      failing: fixture.failingIds.length,
      pending: fixture.missingIds.length,
      coverage: (150 - fixture.missingIds.length - fixture.invalidIds.length) / 150,
    });
    expect(s.openConversations.count).toBe(open);
    const oldestOpen = fixture.dataset.conversations
      .filter((c) => fixture.openIds.includes(c.id))
      .map((c) => new Date(c.started_at).getTime())
      .sort((a, b) => a - b)[0]!;
    expect(s.openConversations.oldestStartedAt).toBe(formatInstant(new Date(oldestOpen)));

    expect(s.errors.total).toBe(4);
    expect(s.errors.recent).toEqual([
      {
        stage: 'detail',
        httpStatus: 500,
        count: 3,
        conversations: 3,
        lastAt: formatInstant(fixture.errors[2]!.occurredAt),
        lastMessage: 'upstream error 2',
      },
      { stage: 'list', httpStatus: 429, count: 1, conversations: 0, lastAt: formatInstant(fixture.errors[3]!.occurredAt), lastMessage: 'rate limited' },
    ]);
  });

  it('prints the same as text on stdout', async () => {
    const res = await runCli(['status', '--db', dbPath]);
    expect(res.code).toBe(0);
    const text = res.stdout;
    expect(text).toMatch(/^watermark\s+2026-11-06T12:00:00Z /m);
    expect(text).toMatch(/^\s+2\s+2026-11-06T11:58:00Z\s+2m00s\s+errors\s+150\s+145\s+4\s/m);
    expect(text).toMatch(/^\s+conversations\s+150$/m);
    expect(text).toMatch(/^\s+transcript_turns\s+[\d,]+$/m);
    expect(text).toContain(`listed 150, stored 144 (96.0%) (coerced 0), missing 5, set aside 1, deleted at the source 0, failing 3`);
    expect(text).toMatch(/^\s+detail\s+500\s+3\s+3\s/m);
    expect(text).toMatch(/^\s+list\s+429\s+1\s+0\s/m);
  });

  it('marks a run left "running" by a killed sync, and shows a live sync', async () => {
    const copy = join(dir, 'running.duckdb');
    copyFileSync(dbPath, copy);
    await Database.with(copy, (db) => startRun(db, new Date('2026-11-06T12:30:00Z'), 'space', fixture.now, new Date('2026-11-06T12:30:00Z')));
    const killed = await getStatus(copy, { now: () => new Date('2026-11-06T12:40:00Z') });
    expect(killed.syncRunning).toBeNull();
    expect(killed.runs[0]).toMatchObject({ runId: 3, status: 'running', stale: true, endedAt: null, durationSec: 600 });
    expect(renderStatus(killed)).toContain('running? (killed)');

    writeFileSync(`${copy}.sync-lock`, String(process.pid)); // a live process holds the sync lock
    const live = await getStatus(copy);
    expect(live.syncRunning).toEqual({ pid: process.pid });
    expect(live.runs[0]).toMatchObject({ status: 'running', stale: false });
    expect(renderStatus(live)).toContain(`running (pid ${process.pid})`);
  });

  it('works on a new, empty database and refuses a missing one (exit 2)', async () => {
    const empty = join(dir, 'empty.duckdb');
    await Database.with(empty, async () => undefined);
    const s = await getStatus(empty);
    expect(s.runs).toEqual([]);
    expect(s.watermark).toBeNull();
    expect(Object.values(s.tables).every((n) => n === 0)).toBe(true);
    expect(s.details.coverage).toBeNull();
    expect(renderStatus(s)).toContain('none yet: run `convoduck sync`');

    const res = await runCli(['status', '--db', join(dir, 'missing.duckdb')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^convoduck: database .*missing\.duckdb does not exist: run `convoduck sync` first.*\n$/);
  });
});
