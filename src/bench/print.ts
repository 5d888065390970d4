// The tables `npm run bench` prints, one printer per section, and the goals each section adds to
// the summary at the end (run.ts runs the sections and writes the JSON).

import type { RealDataResult } from './real-data.js';
import { defaultBurst } from '../simulator/index.js';
import type { BudgetCase, BudgetResult } from './budget.js';
import { fixed } from './measure.js';
import type { NormaliseResult } from './normalise.js';
import type { ReportsResult } from './reports.js';
import type { ScaleResult } from './scale.js';
import type { SpacesResult } from './many-keys.js';
import type { StoredResult } from './stored.js';

export interface Goal {
  what: string;
  goal: string;
  measured: string;
  met: boolean;
  /** measured on time-scaled windows (--quick): indicative only */
  scaled?: boolean;
}

export function table(headers: string[], rows: string[][], alignLeft = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < alignLeft ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const secs = (s: number): string => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s.toFixed(2));
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** What the server allows, in words: a bucket holds its burst on top of the refill. */
function algorithmLabel(c: BudgetCase): string {
  return c.algorithm === 'bucket' ? `bucket, burst ${c.burst ?? defaultBurst(c.limit)}` : c.algorithm;
}

export function printBudget(results: BudgetResult[], s: { scale: number; naiveMs: number }, goals: Goal[]): void {
  const unit = s.scale === 1 ? 'min' : `${60 / s.scale} s`;
  const rounds = [...new Set(results.map((r) => r.case.round))].sort((a, b) => a - b);
  const together = rounds.map((n) => results.filter((r) => r.case.round === n).map((r) => r.case.key).join(', ')).join(' at once, then ');
  console.log(`\n1+2. Budget utilisation and the naive client (cases ${together} at once; separate simulators)`);
  if (s.scale !== 1) {
    console.log(
      `     TIME-SCALED ×${s.scale} (--quick): the rate window is ${60 / s.scale} s instead of 60 s on both the simulator and sync({windowMs});\n` +
        `     latencies, the second client's rate and the naive client's pause are scaled alike. "/${unit}" reads as "per minute";\n` +
        `     Retry-After stays in whole seconds (at least 1, a sixth of a scaled window).`,
    );
  }
  const rows = results.map((r) => {
    const c = r.case;
    const u = r.convoduck.use;
    return [
      `(${c.key}) ${c.limit}/${unit}, ${c.latencyMs} ms${c.otherPerWindow ? `, other ${c.otherPerWindow}/${unit}` : ''}`,
      algorithmLabel(c),
      int(c.conversations),
      String(u.left),
      u.own.join(', '),
      fixed(u.utilisation, 3),
      String(r.convoduck.maxOwnRolling),
      String(r.convoduck.maxKeyRolling),
      String(r.convoduck.throttled),
      String(r.convoduck.otherThrottled),
      `${fixed(r.convoduck.requests / r.convoduck.minimum, 3)}`,
      secs(r.convoduck.seconds),
      `${secs(r.naive.secondsForJob)}${r.naive.extrapolated ? '*' : ''}`,
      String(r.naive.throttled),
      fixed(r.timeRatio, 3),
    ];
  });
  console.log(
    table(
      ['case', 'algorithm', 'N', 'left', `ours per whole ${unit === 'min' ? 'minute' : 'window'}`, 'utilis.', 'max roll. ours', 'max roll. key', '429', 'other 429', 'req ÷ min', 'convoduck s', 'naive s', 'naive 429', 'time ratio'],
      rows,
      2,
    ),
  );
  console.log(
    `     algorithm: how the simulator counts the limit: a rolling window, a fixed window opened by the key's first request after the last\n` +
      `     one ended, or a token bucket refilled at the limit per window that holds at most its burst (and starts full).\n` +
      `     left: the budget left to convoduck per window (the limit minus the second client's rate); ours per whole window: its accepted\n` +
      `     requests in [t0 + kW, t0 + (k+1)W) from its first request t0 (the tail after the last whole window is left out); utilis.: their\n` +
      `     mean ÷ left (above 1: it took the other client's share, or a bucket's burst on top of the refill); max roll.: most requests in any\n` +
      `     rolling window, ours (429s included) / the key's accepted ones (ours and the other client's: a fixed window lets up to twice the\n` +
      `     limit into a rolling one across a reset, a bucket the limit plus its burst); 429: convoduck's requests rejected; other 429: the\n` +
      `     second client's; req ÷ min: requests ÷ the minimum for N.\n` +
      `     time ratio: convoduck's wall time ÷ the naive client's for the same N (per_page 50, one request at a time, 1 s pause${s.scale !== 1 ? ' scaled' : ''},\n` +
      `     a 429 retried after its Retry-After; naive 429: how many it got).\n` +
      `     * the naive client ran ${s.naiveMs / 1000} s and its time for the whole job is extrapolated at its measured pace (seconds per accepted request).`,
  );
  for (const r of results) {
    const c = r.case;
    const name = `budget (${c.key}) ${c.algorithm}`;
    const u = r.convoduck.use;
    goals.push({ what: `${name} utilisation`, goal: '≥ 0.97 of what is left', measured: fixed(u.utilisation, 3), met: u.utilisation >= 0.97, scaled: s.scale !== 1 });
    if (c.algorithm === 'rolling') {
      goals.push({
        what: `${name} never over the budget`,
        goal: `≤ ${u.left} ours in any window, no 429 for the other client`,
        measured: `${r.convoduck.maxOwnRolling} / ${r.convoduck.otherThrottled}`,
        met: r.convoduck.maxOwnRolling <= u.left && r.convoduck.otherThrottled === 0,
      });
    } else {
      // A fixed window or a bucket has no rolling count to stay under: the server's answers judge.
      goals.push({
        what: `${name} never over the budget`,
        goal: 'no 429 for the other client',
        measured: String(r.convoduck.otherThrottled),
        met: r.convoduck.otherThrottled === 0,
      });
    }
    goals.push({ what: `${name} 429 responses`, goal: '≤ 1', measured: String(r.convoduck.throttled), met: r.convoduck.throttled <= 1 });
  }
}

export function printCrawl(r: ScaleResult, goals: Goal[]): void {
  console.log(`\n3+5. Request overhead and memory (simulator and sync in separate processes; limit raised to 10^9/min)`);
  const rows = r.crawls.map((c) => [
    `full sync of ${int(c.conversations)}`,
    int(c.requests),
    int(c.minimum),
    fixed(c.overhead, 4),
    `${c.listRequests}/${c.listMinimum}`,
    fixed(c.maxRssMb, 0),
    secs(c.seconds),
    fixed(c.conversationsPerSec, 0),
    secs(c.cpuSec),
  ]);
  const inc = r.incremental;
  if (inc) {
    rows.push([
      `incremental: +${inc.added} new, ${inc.finished} finished`,
      int(inc.requests),
      int(inc.minimum),
      `min + ${inc.requests - inc.minimum}`,
      `${inc.listRequests}/${Math.ceil((inc.added + inc.finished) / 200)}`,
      '',
      secs(inc.seconds),
      '',
      '',
    ]);
  }
  console.log(table(['run', 'requests', 'minimum', 'ratio', 'list pages/min', 'peak RSS MB', 'wall s', 'conv/s', 'CPU s'], rows));
  console.log(
    '     minimum = 1 (spaces) + agent and tool pages + ceil(N/200) list pages + N details; incremental: the new and the\n' +
      '     newly finished conversations only. Peak RSS: process.resourceUsage().maxRSS of the sync process.',
  );
  for (const c of r.crawls) {
    goals.push({ what: `request overhead, full sync of ${int(c.conversations)}`, goal: '≤ 1.01 × minimum', measured: fixed(c.overhead, 4), met: c.overhead <= 1.01 });
  }
  if (inc) {
    goals.push({ what: 'request overhead, incremental sync', goal: '≤ minimum + 2', measured: `minimum + ${inc.requests - inc.minimum}`, met: inc.requests <= inc.minimum + 2 });
  }
  for (const c of r.crawls) {
    goals.push({ what: `peak RSS, sync of ${int(c.conversations)}`, goal: '< 300 MB', measured: `${fixed(c.maxRssMb, 0)} MB`, met: c.maxRssMb < 300 });
  }
  if (r.crawls.length >= 2) {
    const a = r.crawls[0]!;
    const b = r.crawls[r.crawls.length - 1]!;
    const growth = b.maxRssMb / a.maxRssMb;
    console.log(`     peak RSS ×${fixed(growth, 2)} from ${int(a.conversations)} to ${int(b.conversations)} conversations`);
    goals.push({ what: 'peak RSS flat as N grows', goal: `≤ 1.2× from ${int(a.conversations)} to ${int(b.conversations)}`, measured: `×${fixed(growth, 2)}`, met: growth <= 1.2 });
  }
}

export function printNormalise(r: NormaliseResult): void {
  console.log(`\n4. Normalisation throughput (no HTTP): ${int(r.details)} generated details, ${int(r.transcriptTurns)} transcript turns, ${int(r.toolCalls)} tool calls, ${int(r.nodeVisits)} node visits (${fixed(r.ndjsonMb, 0)} MB NDJSON)`);
  console.log(
    table(
      ['loader', 'seconds', 'details/s', 'turns/s', 'note'],
      [
        ['convoduck store', secs(r.convoduck.seconds), int(r.convoduck.detailsPerSec), int(r.convoduck.turnsPerSec), `saveListPage ×200 + saveDetails ×100, one open database (${fixed(r.convoduck.dbMb, 0)} MB)`],
        ['DuckDB read_json + unnest', secs(r.floor.seconds), int(r.floor.detailsPerSec), int(r.floor.turnsPerSec), 'the floor: no raw bodies, no checks'],
        ['convoduck rebuild', secs(r.rebuild.seconds), int(r.rebuild.detailsPerSec), '', 're-derives every table from the raw bodies'],
      ],
    ),
  );
  console.log(`     convoduck ÷ floor: ${fixed(r.ratio, 1)}× the time`);
}

export function printReports(r: ReportsResult, goals: Goal[]): void {
  console.log(
    `\n6. Reports at scale: ${int(r.counts.conversations)} conversations, ${int(r.counts.transcriptTurns)} turns, ${int(r.counts.nodeVisits)} node visits, ` +
      `${int(r.counts.toolCalls)} tool calls, ${int(r.counts.rawDetails)} raw detail bodies (generated in SQL in ${secs(r.generateSec)} s, ${fixed(r.dbMb / 1000, 1)} GB)`,
  );
  const rows = [['base relations (once per run)', secs(r.baseSec), ''], ...r.reports.map((x) => [x.name, secs(x.seconds), int(x.rows)])];
  rows.push([`all reports, one \`report\` run (median of ${r.runTotalsSec.length}: ${r.runTotalsSec.map(secs).join(', ')} s)`, secs(r.totalSec), '']);
  console.log(table(['report', 'seconds', 'rows'], rows));
  goals.push({ what: `reports: all over ${int(r.counts.conversations)} conversations`, goal: '< 15 s', measured: `${secs(r.totalSec)} s`, met: r.totalSec < 15 });
}

export function printSpaces(r: SpacesResult, goals: Goal[]): void {
  const s = r.settings;
  const scaled = s.windowMs !== 60_000;
  const per = scaled ? `${s.windowMs / 1000} s` : 'min';
  console.log(
    `\n7. Many spaces: one \`convoduck sync --config\` of ${s.count} spaces × ${int(s.conversations)} conversations, each key ${s.rateLimit}/${per} ` +
      `(rolling window${s.latencyMs > 0 ? `, ${s.latencyMs} ms responses` : ''}); the CLI and the ${s.count} simulators in separate processes`,
  );
  if (scaled) {
    console.log(`     TIME-SCALED (--quick): the rate window is ${s.windowMs / 1000} s on the simulators and the CLI (CONVODUCK_RATE_WINDOW_MS); indicative only.`);
  }
  const statuses = Object.entries(r.statuses).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(
    table(
      ['details', 'pending', 'details/s', 'budget/s', `utilis. min / median / max`, '429', 'peak RSS MB', 'CPU s', 'wall s', 'exit', 'spaces'],
      [
        [
          int(r.details),
          int(r.detailsPending),
          fixed(r.detailsPerSec, 1),
          fixed(r.budgetPerSec, 1),
          `${fixed(r.utilisation.min, 3)} / ${fixed(r.utilisation.median, 3)} / ${fixed(r.utilisation.max, 3)}`,
          String(r.throttled),
          fixed(r.maxRssMb, 0),
          secs(r.cpuSec),
          secs(r.seconds),
          String(r.exitCode),
          statuses,
        ],
      ],
      0,
    ),
  );
  console.log(
    `     details/s: detail responses (200) from the first to the last, all keys together; budget/s: what the keys allow together.\n` +
      `     utilis.: per key, its accepted requests (lists and details) in the whole windows from its first request (the tail after the\n` +
      `     last whole window is left out) ÷ its limit, from its simulator's request log. 429: the keys' requests refused, all spaces.\n` +
      `     Peak RSS, CPU and wall time: process.resourceUsage() of the CLI's process.`,
  );
  console.log(`     the lowest single whole window of any key: ${fixed(r.worstWindow, 3)} of its limit (each key's windows are in the JSON)`);
  for (const e of r.errors) console.log(`     space error: ${e}`);
  goals.push({ what: `spaces: each key's utilisation (lowest of ${s.count})`, goal: '≥ 0.95 of its limit', measured: fixed(r.utilisation.min, 3), met: r.utilisation.min >= 0.95, scaled });
  goals.push({
    what: `spaces: aggregate details/s (${s.count} keys)`,
    goal: `≥ 0.95 × ${fixed(r.budgetPerSec, 0)}/s`,
    measured: fixed(r.detailsPerSec, 1),
    met: r.detailsPerSec >= 0.95 * r.budgetPerSec,
    scaled,
  });
  goals.push({ what: `spaces: peak RSS, ${s.count} spaces`, goal: '< 300 MB', measured: `${fixed(r.maxRssMb, 0)} MB`, met: r.maxRssMb < 300 });
  goals.push({ what: 'spaces: every space ok', goal: 'exit 0', measured: `exit ${r.exitCode} (${statuses})`, met: r.exitCode === 0 });
}

export function printStored(results: StoredResult[], goals: Goal[]): void {
  if (results.length === 0) return;
  const added = results[0]!.added;
  console.log(
    `\n8. Memory as the database grows: a flat-out sync adding ${int(added)} conversations to a database already holding N ` +
      `(generated in SQL; simulator in another process, limit raised to 10^9/min)`,
  );
  console.log(
    table(
      ['stored N', 'db MB', 'generated s', 'added', 'peak RSS MB', 'wall s', 'details/s', 'CPU s', 'status'],
      results.map((r) => [int(r.stored), fixed(r.dbMb, 0), secs(r.generateSec), int(r.added), fixed(r.maxRssMb, 0), secs(r.seconds), fixed(r.detailsPerSec, 0), secs(r.cpuSec), r.status]),
    ),
  );
  console.log('     db MB: the file before the sync. Peak RSS: process.resourceUsage().maxRSS of the sync process.');
  for (const r of results) {
    goals.push({ what: `stored: peak RSS, sync over ${int(r.stored)}`, goal: '< 300 MB', measured: `${fixed(r.maxRssMb, 0)} MB`, met: r.maxRssMb < 300 });
  }
  if (results.length >= 2) {
    const a = results[0]!;
    const b = results[results.length - 1]!;
    const growth = b.maxRssMb / a.maxRssMb;
    console.log(`     peak RSS ×${fixed(growth, 2)} from ${int(a.stored)} to ${int(b.stored)} stored conversations`);
    goals.push({ what: 'stored: peak RSS flat as the database grows', goal: `≤ 1.2× from ${int(a.stored)} to ${int(b.stored)}`, measured: `×${fixed(growth, 2)}`, met: growth <= 1.2 });
  }
}

export function printRealData(r: RealDataResult, goals: Goal[]): void {
  const l = r.long;
  console.log(
    `\n9. Real data: a flat-out sync of ${int(l.conversations)} conversations, ${int(l.longConversations)} of them with ${int(l.longTurns)} turns ` +
      `(simulator in another process, limit raised to 10^9/min)`,
  );
  console.log(
    table(
      ['conversations', 'long', 'peak RSS MB', 'largest body MB', 'turns stored', 'wall s', 'CPU s', 'status'],
      [[int(l.conversations), int(l.longConversations), fixed(l.maxRssMb, 0), fixed(l.largestBodyMb, 1), int(l.turnsStored), secs(l.seconds), secs(l.cpuSec), l.status]],
    ),
  );
  goals.push({ what: 'real data: peak RSS, 1% of conversations long', goal: '< 300 MB', measured: `${fixed(l.maxRssMb, 0)} MB`, met: l.maxRssMb < 300 && l.status === 'ok' });
  console.log(`\n   Random mixes of long conversations, hard text, type drift and deletions, synced twice (odd seeds under a 12 MB writer cap)`);
  console.log(
    table(
      ['seed', 'listed', 'exact', 'coerced', 'set aside', 'deleted', 'runs', 'as the truth says'],
      r.mixes.map((m) => [String(m.seed), int(m.listed), int(m.exact), int(m.coerced), int(m.setAside), int(m.deleted), m.statuses, m.ok ? 'yes' : `NO: ${m.problem}`]),
    ),
  );
  const failed = r.mixes.filter((m) => !m.ok).length;
  goals.push({ what: 'real data: random mixes end as their truth says', goal: 'every seed', measured: `${r.mixes.length - failed} of ${r.mixes.length}`, met: failed === 0 });
}
