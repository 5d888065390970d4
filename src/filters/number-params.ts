// The whole-number parameters of a report run and their defaults: a module of its own so the CLI
// can show them in --help without loading DuckDB.

/**
 * The whole-number parameters reports may use, declared once: the command's flag (`--slow-seconds`
 * sets `slowSeconds`, bound as `$slow_seconds`), its default and its help text all come from here,
 * so a report that needs a new one adds a line to this list and nothing else in TypeScript.
 */
export const NUMBER_PARAMS = [
  { key: 'earlySeconds', name: 'early_seconds', flag: '--early-seconds', defaultValue: 10,
    help: 'early_hangups, agent_leaderboard: a voice hang-up within this many seconds is early' },
  { key: 'minSample', name: 'min_sample', flag: '--min-sample', defaultValue: 20,
    help: 'agent_leaderboard: flag agents with fewer conversations' },
  // bound as $days, the name reports already use; the flag says which days (simulate's --days is its history)
  { key: 'changeDays', name: 'days', flag: '--change-days', defaultValue: 7,
    help: 'agent_changes: compare the conversations of this many days before and after a change' },
  { key: 'slowSeconds', name: 'slow_seconds', flag: '--slow-seconds', defaultValue: 10,
    help: 'response_times, handoff_precursors: an answer that took longer than this many seconds is slow' },
  { key: 'loopVisits', name: 'loop_visits', flag: '--loop-visits', defaultValue: 2,
    help: 'loops, handoff_precursors: a conversation that enters a node more than this many times loops' },
  { key: 'lastTurns', name: 'last_turns', flag: '--last-turns', defaultValue: 4,
    help: 'handoff_precursors: how many turns before the end to look at' },
] as const;

export type NumberParam = (typeof NUMBER_PARAMS)[number];
export type NumberParamKey = NumberParam['key'];

export const DEFAULT_EARLY_SECONDS = numberDefault('earlySeconds');
export const DEFAULT_MIN_SAMPLE = numberDefault('minSample');
export const DEFAULT_DAYS = numberDefault('changeDays');

function numberDefault(key: NumberParamKey): number {
  return NUMBER_PARAMS.find((p) => p.key === key)!.defaultValue;
}
