// Every command that writes a DuckDB file, set up to be killed again and again: the files each
// one writes, made once from a sync of the built-in simulator, and what each round runs.

import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { generateDataset, startSimulator, type Simulator } from '../simulator/index.js';
import { Database } from '../store/database.js';

export const WRITERS = ['sync', 'sync-db-dir', 'forget', 'redact-at-rest', 'migration', 'rebuild', 'alert', 'export'] as const;
export type WriterName = (typeof WRITERS)[number];

/** One run of a writer: the command line, and the database files it may leave behind. */
export interface Round {
  args: string[];
  env: Record<string, string>;
  /** the files to read whole after the run */
  files: string[];
  /**
   * files made for this round only (a copy the writer converts once): after the read, opened for
   * writing as the next command would (what a kill left replayed, a conversion finished) and read again
   */
  throwaway: boolean;
  /** exit codes of a run that was not killed that mean it worked */
  okCodes: number[];
}

export interface Writer {
  name: WriterName;
  /** the files that outlive a round (each round goes on from what the last one left) */
  lasting: string[];
  round(i: number): Round;
}

export interface SoakFixtures {
  writers: Writer[];
  close(): Promise<void>;
}

const REDACT_KEY = 'soak'.repeat(4) + '0123456789abcdef0123456789abcdef';

/** Two rules of docs/alerts.example.toml: one report per hour of the stored days. */
const RULES = `[[rule]]
name = "tool-failures-per-connection"
report = "connection_health"
column = "failure_rate"
group = ["space", "connection_id", "connection_name"]
period = "day"
kind = "threshold"
warn_above = 0.4
volume_column = "calls"
min_volume = 1

[[rule]]
name = "transfers-per-agent"
report = "transfers"
column = "transfer_rate"
group = ["space", "agent_id", "agent_name"]
period = "day"
kind = "anomaly"
history = 7
warn_z = 3
`;

/** Removes a database file and everything DuckDB or convoduck keeps beside it. */
export function removeDatabase(path: string): void {
  const dir = dirname(path);
  const name = basename(path);
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    if (entry === name || entry.startsWith(`${name}.`)) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

/** `path` replaced by a copy of `template` (a file closed cleanly: no WAL beside it). */
function copyDatabase(template: string, path: string): void {
  removeDatabase(path);
  copyFileSync(template, path);
}

/**
 * A file as schema 13 left it: the conversation keys (migration 14) gone, so that opening it
 * copies the five largest tables again, then runs every later step.
 */
async function downgradeToSchema13(path: string): Promise<void> {
  await Database.with(path, async (db) => {
    for (const table of ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'conversation_figures']) {
      await db.run(`ALTER TABLE ${table} DROP COLUMN conversation_key`);
    }
    await db.run(`UPDATE convoduck_meta SET value = '13' WHERE key = 'schema_version'`);
  });
}

/** A run that must finish (setting up): async, since the simulators answer on this process's event loop. */
async function cleanSync(cli: string, env: Record<string, string>, args: string[] = ['sync']): Promise<void> {
  const child = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4_000)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`setup ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
}

/**
 * Starts the simulators and makes each writer's files in `root`: `conversations` in the main
 * space, half as many in each of the two spaces of the folder of space files.
 */
export async function setUpWriters(root: string, cli: string, conversations: number, seed: number, only: readonly WriterName[]): Promise<SoakFixtures> {
  const latency = { listMs: 5, detailMs: 3, otherMs: 1 };
  const sim = await startSimulator({ seed, conversations, rateLimit: 1_000_000, latency });
  const now = new Date();
  const dirSims: Simulator[] = [];
  try {
    for (const [i, slug] of ['soak-a', 'soak-b'].entries()) {
      const dataset = generateDataset({ seed: seed + 1 + i, now, spaceSlug: slug, conversations: Math.ceil(conversations / 2) });
      dirSims.push(await startSimulator({ dataset, rateLimit: 1_000_000, latency }));
    }
    const apiEnv = (db: string): Record<string, string> => ({ CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db });
    const base = join(root, 'base.duckdb');
    await cleanSync(cli, apiEnv(base));
    const files = (name: string): string => join(root, `${name}.duckdb`);
    for (const name of ['sync', 'forget', 'rebuild', 'alert', 'export', 'clear', 'old']) copyFileSync(base, files(name));
    await downgradeToSchema13(files('old'));
    const forgettable = await Database.with(base, async (db) => (await db.all<{ id: string }>(`SELECT id FROM conversations ORDER BY id`)).map((r) => r.id), { readOnly: true });
    const rules = join(root, 'rules.toml');
    writeFileSync(rules, RULES);
    const config = join(root, 'spaces.toml');
    writeFileSync(config, dirSims.map((s, i) => `[[space]]\nbase_url = "${s.baseUrl}"\napi_key_env = "SOAK_KEY_${i}"\nslug = "${s.space}"\n`).join('\n'));
    const spacesDir = join(root, 'spaces');
    mkdirSync(spacesDir, { recursive: true });
    const dirEnv: Record<string, string> = Object.fromEntries(dirSims.map((s, i) => [`SOAK_KEY_${i}`, s.apiKey]));

    const writers: Writer[] = [
      {
        name: 'sync',
        lasting: [files('sync')],
        // new conversations each round, and every third a full re-listing (every detail written again)
        round: (i) => {
          sim.addConversations(10 + (i % 5) * 10);
          sim.finishOpenConversations();
          return { args: i % 3 === 2 ? ['sync', '--full'] : ['sync'], env: apiEnv(files('sync')), files: [files('sync')], throwaway: false, okCodes: [0] };
        },
      },
      {
        name: 'sync-db-dir',
        lasting: dirSims.map((s) => join(spacesDir, `${s.space}.duckdb`)),
        round: (i) => {
          for (const s of dirSims) {
            s.addConversations(5 + (i % 4) * 10);
            s.finishOpenConversations();
          }
          return {
            args: ['sync', '--config', config, '--db-dir', spacesDir, ...(i % 3 === 2 ? ['--full'] : [])],
            env: dirEnv,
            files: dirSims.map((s) => join(spacesDir, `${s.space}.duckdb`)),
            throwaway: false,
            okCodes: [0],
          };
        },
      },
      {
        name: 'forget',
        lasting: [files('forget')],
        round: (i) => ({
          args: ['forget', '--db', files('forget'), '--id', forgettable[i % forgettable.length]!],
          env: {},
          files: [files('forget')],
          throwaway: false,
          // an id a killed run erased already is no longer held (exit 2)
          okCodes: [0, 2],
        }),
      },
      {
        name: 'redact-at-rest',
        lasting: [],
        round: () => {
          copyDatabase(files('clear'), files('redact'));
          return {
            args: ['sync', '--redact-at-rest'],
            env: { ...apiEnv(files('redact')), CONVODUCK_REDACT_KEY: REDACT_KEY },
            files: [files('redact')],
            throwaway: true,
            okCodes: [0],
          };
        },
      },
      {
        name: 'migration',
        lasting: [],
        // `status` reads; a file of an older schema is upgraded by a writable opening first
        round: () => {
          copyDatabase(files('old'), files('migrate'));
          return { args: ['status', '--db', files('migrate')], env: {}, files: [files('migrate')], throwaway: true, okCodes: [0] };
        },
      },
      {
        name: 'rebuild',
        lasting: [files('rebuild')],
        round: () => ({ args: ['rebuild', '--db', files('rebuild')], env: {}, files: [files('rebuild')], throwaway: false, okCodes: [0] }),
      },
      {
        name: 'alert',
        lasting: [files('alert')],
        // 10: an alert fires
        round: () => ({ args: ['alert', '--db', files('alert'), '--rules', rules], env: {}, files: [files('alert')], throwaway: false, okCodes: [0, 10] }),
      },
      {
        name: 'export',
        lasting: [files('export')],
        round: (i) => ({
          args: ['export', '--db', files('export'), ...(i % 2 === 0 ? ['--out', join(root, 'export-by-day'), '--partition-by', 'day'] : ['--out', join(root, 'export-whole')])],
          env: {},
          files: [files('export')],
          throwaway: false,
          okCodes: [0],
        }),
      },
    ];
    return {
      writers: writers.filter((w) => only.includes(w.name)),
      close: async () => {
        await Promise.all([sim, ...dirSims].map((s) => s.close()));
      },
    };
  } catch (err) {
    await Promise.all([sim, ...dirSims].map((s) => s.close()));
    throw err;
  }
}
