import type { Command } from 'commander';
import { KNOWN_CHANNELS } from '../../api/types.js';
import { QUERY_FORMATS } from '../../output/formats.js';
import { parseDurationArg } from '../../shared/time.js';
import { DB_DIR_HELP, LAKE_HELP, resolveReadTarget } from '../config/read-target.js';
import { UsageError } from '../errors.js';
import { READER_WAIT_HELP, SINCE_HELP, UNTIL_HELP, withDeprecatedAlias } from '../grammar.js';
import { parseChoice, parsePositiveInt, parseRowsFormat } from '../parse.js';

interface SearchFlags {
  db?: string;
  dbDir?: string;
  lake?: string;
  limit: string;
  format?: string;
  since?: string;
  until?: string;
  tz: string;
  agent?: string[];
  space?: string[];
  channel?: string;
  speaker?: string;
  wait: string;
  maxWidth: string;
  raw?: boolean;
}

const SPEAKERS = ['caller', 'agent'] as const;
const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerSearch(program: Command): void {
  const command = program
    .command('search')
    .summary('find the transcript turns that best match some words, ranked (BM25)')
    .description(
      'Search the stored transcripts: the turns that best match the words given, best first, ranked ' +
        'by BM25 over the index convoduck keeps beside the turns (every sync and rebuild keeps it ' +
        'current; forget erases from it). Each row names the conversation, its agent and space, when ' +
        'the turn was spoken, and a snippet with the matched words between « ». Read-only; works ' +
        'while a sync runs (waits for it up to --wait).',
    )
    .argument('[words...]', 'what to look for, e.g. "refund not received" (quotes optional)')
    .option('--limit <n>', 'how many turns to show', '20')
    .option('--format <format>', `output format: ${QUERY_FORMATS.join(', ')} (default: table on a terminal, else csv)`)
    .option('--since <time>', `${SINCE_HELP} (a date is midnight in --tz)`)
    .option('--until <time>', UNTIL_HELP)
    .option('--tz <zone>', 'time zone a --since/--until date is read in (IANA name)', 'UTC')
    .option('--agent <id>', 'only this agent’s conversations (repeatable)', repeat)
    .option('--space <slug>', 'only this space (repeatable); the ranking then counts only its turns', repeat)
    .option('--channel <channel>', `only this channel: ${KNOWN_CHANNELS.join(' or ')}`)
    .option('--speaker <who>', `only turns of: ${SPEAKERS.join(' or ')}`)
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--db-dir <dir>', DB_DIR_HELP)
    .option('--lake <dir>', LAKE_HELP)
    .option('--wait <duration>', READER_WAIT_HELP, '30s')
    .option('--max-width <n>', 'table format: cut cells longer than this', '100')
    .option('--raw', 'CSV: keep text cells that look like spreadsheet formulas as they are');
  withDeprecatedAlias(command, { old: '--from <time>', now: '--since' });
  withDeprecatedAlias(command, { old: '--to <time>', now: '--until' });
  // rows are chosen with --format; --json is what a run did, and a search prints rows
  withDeprecatedAlias(command, { old: '--json', now: '--format', value: () => ({ attribute: 'format', value: 'json' }) });
  command
    .addHelpText(
      'after',
      `
Examples:
  convoduck search "refund not received"
  convoduck search refund not received --since 7d --speaker caller --limit 50
  convoduck search "cancel my subscription" --agent 3f2a… --format json | jq '.[0].conversation_id'
  convoduck search "wrong address" --format csv > matches.csv

How words match: lower-cased, apostrophes dropped (don't = dont), split at anything but letters
and digits, common words left out (a, the, to, my, …; not "no" or "not"), plurals folded
(refunds = refund, deliveries = delivery). A turn matches when it holds any of the words; the
more of them, the rarer they are and the shorter the turn, the higher it ranks (BM25, k1 1.2,
b 0.75). Columns: rank, score, space, agent_id, agent_name, conversation_id, seq, spoken_at (UTC),
speaker, node_key, snippet. --since/--until/--agent/--channel select conversations as report does.
For matches per day on a schedule: convoduck report search_matches --search "refund not received".
Exit codes: 0 ok (also when nothing matches), 1 database busy for longer than --wait, 2 bad usage.`,
    )
    .action(async (words: string[], flags: SearchFlags) => {
      const query = words.join(' ');
      if (query.trim() === '') throw new UsageError('the search query is empty: give the words to look for, e.g. convoduck search "refund not received"');
      const format = parseRowsFormat(flags.format);
      const limit = parsePositiveInt('--limit', flags.limit);
      const maxCellWidth = parsePositiveInt('--max-width', flags.maxWidth);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const channel = flags.channel === undefined ? null : parseChoice('--channel', flags.channel, KNOWN_CHANNELS);
      const speaker = flags.speaker === undefined ? null : parseChoice('--speaker', flags.speaker, SPEAKERS);
      const [{ searchTurns }, { parseReportTime }, { busyNotice }] = await Promise.all([
        import('../../search/search.js'),
        import('../../filters/params.js'),
        import('../../store/read-only.js'),
      ]);
      const now = new Date();
      const result = await searchTurns(resolveReadTarget(flags), {
        query,
        limit,
        format,
        maxCellWidth,
        raw: flags.raw ?? false,
        lockTimeoutMs,
        onWait: () => process.stderr.write(busyNotice(flags.wait)),
        filters: {
          from: flags.since === undefined ? null : parseReportTime('--since', flags.since, now),
          to: flags.until === undefined ? null : parseReportTime('--until', flags.until, now),
          tz: flags.tz,
          agents: flags.agent ?? [],
          spaces: flags.space ?? [],
          channel,
          speaker,
        },
      });
      if (format === 'table' && !result.truncated) {
        process.stderr.write(`(${result.rows} turn${result.rows === 1 ? '' : 's'} for ${result.terms.join(' ')})\n`);
      }
    });
}
