// Normalisation throughput: conversation details turned into the public tables, without HTTP.
//
// The same N generated details go (1) through the store's own write functions, as the crawler
// calls them (saveListPage per 200 list entries, then saveDetails per 100 details, on one open
// database), and (2) through DuckDB alone: read_json of an NDJSON file and SQL unnesting into the
// same tables, the floor for any loader (it keeps no raw bodies and checks nothing). Then
// `rebuild` re-derives the tables of database (1) from its raw bodies.

import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Database } from '../store/database.js';
import { rebuild } from '../store/derive.js';
import { SCHEMA_SQL } from '../store/schema.js';
import { normaliseDetail } from '../store/normalise.js';
import { CONVERSATION_FIGURES_SQL, turnFiguresSql, VISIT_ENTRY_SQL } from '../store/figures.js';
import { conversationKeySql } from '../store/conversation-key.js';
import { startRun, type RunCounters } from '../store/sync-runs.js';
import { saveDetails, saveListPage, type FetchedDetail } from '../store/writes.js';
import { generateDataset } from '../simulator/index.js';
import { sqlText } from '../store/sql.js';

export interface NormaliseResult {
  details: number;
  transcriptTurns: number;
  toolCalls: number;
  nodeVisits: number;
  ndjsonMb: number;
  generateSec: number;
  convoduck: { seconds: number; detailsPerSec: number; turnsPerSec: number; dbMb: number };
  floor: { seconds: number; detailsPerSec: number; turnsPerSec: number };
  /** convoduck's seconds ÷ the floor's */
  ratio: number;
  rebuild: { seconds: number; detailsPerSec: number };
}

const LIST_PAGE = 200;
const DETAIL_BATCH = 100;

export async function benchNormalise(dir: string, n: number, log: (s: string) => void): Promise<NormaliseResult> {
  mkdirSync(dir, { recursive: true });
  const listedFile = join(dir, 'listed.ndjson');
  const detailsFile = join(dir, 'details.ndjson');
  const dbPath = join(dir, 'convoduck.duckdb');
  const floorPath = join(dir, 'floor.duckdb');
  for (const p of [dbPath, `${dbPath}.wal`, floorPath, `${floorPath}.wal`]) rmSync(p, { force: true });

  // ---- generate the data once, as NDJSON files (the list entries and the detail bodies)
  log(`normalise: generating ${n} conversations with details`);
  let t = performance.now();
  const dataset = generateDataset({ seed: 42, conversations: n, now: new Date('2026-11-20T12:00:00Z') });
  const listed = createWriteStream(listedFile);
  const details = createWriteStream(detailsFile);
  let turns = 0;
  for (const rec of dataset.records) {
    if (!listed.write(`${JSON.stringify(rec.summary)}\n`)) await once(listed, 'drain');
    const detail = dataset.detail(rec.id)!;
    turns += detail.transcript?.length ?? 0;
    if (!details.write(`${JSON.stringify({ data: detail })}\n`)) await once(details, 'drain');
  }
  listed.end();
  details.end();
  await Promise.all([once(listed, 'finish'), once(details, 'finish')]);
  const generateSec = (performance.now() - t) / 1000;
  const ndjsonMb = statSync(detailsFile).size / 1e6;

  // ---- (1) convoduck's store
  log(`normalise: convoduck store (saveListPage ×${LIST_PAGE}, saveDetails ×${DETAIL_BATCH})`);
  const space = dataset.space.slug;
  const counters: RunCounters = { requests: 0, throttled: 0, retries: 0, conversationsListed: 0, detailsFetched: 0, detailsCoerced: 0, detailsSetAside: 0, conversationsDeleted: 0, errors: 0 };
  let storeSec = 0;
  const db = await Database.open(dbPath);
  try {
    const runId = await startRun(db, new Date(), space, null, new Date());
    const listedAt = new Date();
    let page: { id: string; body: string }[] = [];
    for await (const line of createInterface({ input: createReadStream(listedFile) })) {
      page.push({ id: (JSON.parse(line) as { id: string }).id, body: line });
      if (page.length === LIST_PAGE) {
        t = performance.now();
        await saveListPage(db, space, listedAt, page);
        storeSec += (performance.now() - t) / 1000;
        page = [];
      }
    }
    if (page.length > 0) {
      t = performance.now();
      await saveListPage(db, space, listedAt, page);
      storeSec += (performance.now() - t) / 1000;
    }
    let batch: FetchedDetail[] = [];
    const flush = async (): Promise<void> => {
      counters.detailsFetched += batch.length;
      t = performance.now();
      await saveDetails(db, space, batch, [], runId, counters);
      storeSec += (performance.now() - t) / 1000;
      batch = [];
    };
    for await (const line of createInterface({ input: createReadStream(detailsFile) })) {
      // The crawler parses and normalises every body, and stores the text as received.
      const json = JSON.parse(line) as { data: { id: string } };
      const id = json.data.id;
      batch.push({ id, fetchedAt: new Date(), body: line, normalised: normaliseDetail(json, id) });
      if (batch.length === DETAIL_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  } finally {
    db.close();
  }
  const counts = await Database.with(dbPath, (d) =>
    d.one<{ c: number; t: number; k: number; v: number }>(
      `SELECT (SELECT count(*) FROM conversations)::INTEGER AS c, (SELECT count(*) FROM transcript_turns)::INTEGER AS t,
              (SELECT count(*) FROM tool_calls)::INTEGER AS k, (SELECT count(*) FROM node_visits)::INTEGER AS v`,
    ),
  );
  if (!counts || counts.c !== n || counts.t !== turns) {
    throw new Error(`normalise: store holds ${counts?.c} conversations / ${counts?.t} turns, expected ${n} / ${turns}`);
  }
  const dbMb = statSync(dbPath).size / 1e6;

  // ---- (2) the floor: DuckDB's read_json + SQL unnesting into the same tables
  log('normalise: floor (read_json + unnest)');
  const floor = await Database.open(floorPath);
  let floorSec: number;
  try {
    await floor.run(SCHEMA_SQL);
    t = performance.now();
    await floor.run(`
      CREATE TEMP TABLE d AS
      SELECT data FROM read_json(${sqlText(detailsFile)}, format = 'newline_delimited', columns = {data: 'STRUCT(
        id VARCHAR, agent_id VARCHAR, channel VARCHAR, direction VARCHAR, session_ref VARCHAR, page_url VARCHAR,
        started_at VARCHAR, ended_at VARCHAR, duration_sec INTEGER, message_count INTEGER, outcome VARCHAR,
        summary VARCHAR,
        transcript STRUCT("at" VARCHAR, speaker VARCHAR, text VARCHAR, node_key VARCHAR)[],
        tool_calls STRUCT("at" VARCHAR, tool_id VARCHAR, slug VARCHAR, node_key VARCHAR, status VARCHAR,
                          input_redacted JSON, output_redacted JSON)[],
        node_path STRUCT("at" VARCHAR, node_key VARCHAR)[])'})`);
    await floor.run(`
      INSERT INTO conversations
      SELECT data.id, ${sqlText(space)}, data.agent_id, data.channel, data.direction, data.session_ref,
             data.page_url, try_cast(data.started_at AS TIMESTAMPTZ), try_cast(data.ended_at AS TIMESTAMPTZ),
             data.duration_sec, data.message_count, data.outcome, data.summary,
             data.ended_at IS NOT NULL AND data.outcome IS NOT NULL, now(), now(), 'exact', NULL, ${conversationKeySql('data.id')}
      FROM d`);
    await floor.run(`
      INSERT INTO transcript_turns BY NAME
      ${turnFiguresSql(`(SELECT id AS conversation_id, seq, try_cast("at" AS TIMESTAMPTZ) AS spoken_at, speaker, text, node_key
        FROM (SELECT data.id AS id, generate_subscripts(data.transcript, 1) - 1 AS seq, unnest(data.transcript, recursive := true) FROM d))`)}`);
    await floor.run(`
      INSERT INTO tool_calls
      SELECT id, seq, try_cast("at" AS TIMESTAMPTZ), tool_id, slug, node_key, status, input_redacted, output_redacted,
             ${conversationKeySql('id')}
      FROM (SELECT data.id AS id, generate_subscripts(data.tool_calls, 1) - 1 AS seq, unnest(data.tool_calls, recursive := true) FROM d)`);
    await floor.run(`
      INSERT INTO node_visits
      SELECT conversation_id, seq, entered_at, node_key, ${VISIT_ENTRY_SQL}, ${conversationKeySql('conversation_id')}
      FROM (SELECT id AS conversation_id, seq, try_cast("at" AS TIMESTAMPTZ) AS entered_at, node_key
            FROM (SELECT data.id AS id, generate_subscripts(data.node_path, 1) - 1 AS seq, unnest(data.node_path, recursive := true) FROM d))`);
    await floor.run(`INSERT INTO conversation_figures ${CONVERSATION_FIGURES_SQL}`);
    await floor.run('CHECKPOINT');
    floorSec = (performance.now() - t) / 1000;
    const f = await floor.one<{ c: number; t: number }>(
      `SELECT (SELECT count(*) FROM conversations)::INTEGER AS c, (SELECT count(*) FROM transcript_turns)::INTEGER AS t`,
    );
    if (!f || f.c !== n || f.t !== turns) throw new Error(`normalise: floor loaded ${f?.c} / ${f?.t}, expected ${n} / ${turns}`);
  } finally {
    floor.close();
  }

  // ---- rebuild on database (1)
  log('normalise: rebuild');
  let rebuildSec = 0;
  await Database.with(dbPath, async (d) => {
    t = performance.now();
    await rebuild(d);
    await d.run('CHECKPOINT');
    rebuildSec = (performance.now() - t) / 1000;
  });

  rmSync(listedFile, { force: true });
  rmSync(detailsFile, { force: true });
  return {
    details: n,
    transcriptTurns: turns,
    toolCalls: counts.k,
    nodeVisits: counts.v,
    ndjsonMb,
    generateSec,
    convoduck: { seconds: storeSec, detailsPerSec: n / storeSec, turnsPerSec: turns / storeSec, dbMb },
    floor: { seconds: floorSec, detailsPerSec: n / floorSec, turnsPerSec: turns / floorSec },
    ratio: storeSec / floorSec,
    rebuild: { seconds: rebuildSec, detailsPerSec: n / rebuildSec },
  };
}
