// The shards section's table, printed by `npm run bench` and written into docs/performance.md.

import { fixed } from './measure.js';
import { int, secs, table, type Goal } from './print.js';
import type { ShardsResult } from './shards.js';

const exits = (r: ShardsResult): string => {
  const codes = r.processes.map((p) => String(p.exitCode));
  return [...new Set(codes)].map((c) => `${codes.filter((x) => x === c).length} × exit ${c}`).join(', ');
};

/** The row the doc and the console share. */
function row(r: ShardsResult, bold: (s: string) => string): string[] {
  const s = r.settings;
  const u = r.utilisation;
  return [
    `${s.shards} shards × ${s.spacesPerShard} spaces × ${int(s.conversations)}`,
    int(r.details),
    `${bold(fixed(u.min, 3))} / ${fixed(u.median, 3)} / ${fixed(u.max, 3)}`,
    fixed(r.worstWindow, 3),
    String(r.throttled),
    bold(`${fixed(r.maxRssMb, 0)} MB`),
    `${secs(r.cpuSec)} s`,
    `${secs(r.seconds)} s`,
    exits(r),
  ];
}

const HEADERS = ['shards', 'details', "keys' utilisation min / median / max", 'lowest window', '429s', 'peak RSS of a shard', 'CPU (all shards)', 'wall', 'processes'];

export function printShards(r: ShardsResult, goals: Goal[]): void {
  const s = r.settings;
  const scaled = s.windowMs !== 60_000;
  console.log(
    `\nShards on one machine: ${s.shards} \`convoduck sync --db-dir --shard-count ${s.shards}\` processes at once (JOB_COMPLETION_INDEX 0 … ${s.shards - 1}), ` +
      `${s.spacesPerShard} spaces each, each key ${s.rateLimit} per ${secs(s.windowMs / 1000)} s; the ${s.shards * s.spacesPerShard} simulators in another process`,
  );
  if (scaled) console.log(`     TIME-SCALED (--quick): the rate window is ${s.windowMs / 1000} s; indicative only.`);
  console.log(table(HEADERS, [row(r, (x) => x)], 1));
  console.log(
    `     utilisation: per key, its accepted requests in the whole windows from its first request ÷ its limit (its simulator's log).\n` +
      `     peak RSS: the highest of the shard processes (process.resourceUsage()); per shard in the JSON.`,
  );
  goals.push({ what: `shards: the lowest key's share of its budget (${s.shards} shards × ${s.spacesPerShard} spaces)`, goal: '≥ 0.95 of its limit', measured: fixed(r.utilisation.min, 3), met: r.utilisation.min >= 0.95, scaled });
  goals.push({ what: 'shards: peak RSS of a shard', goal: '< 300 MB', measured: `${fixed(r.maxRssMb, 0)} MB`, met: r.maxRssMb < 300 });
  goals.push({ what: 'shards: every shard ok', goal: 'exit 0', measured: exits(r), met: r.processes.every((p) => p.exitCode === 0) });
}

/** The doc's table (docs.ts puts the goals line and the provenance under it). */
export function shardsDocTable(r: ShardsResult): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(HEADERS), `|${HEADERS.map(() => '---').join('|')}|`, line(row(r, (x) => `**${x}**`))].join('\n');
}
