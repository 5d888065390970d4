import type { Command } from 'commander';
import type { Simulator } from '../../simulator/index.js';
import { UsageError } from '../errors.js';
import { parseIncidentFlags } from '../simulate/incidents.js';

interface SimulateFlags {
  port: string;
  conversations: string;
  seed: string;
  slug?: string;
  days: string;
  recordingLinkSeconds: string;
  rateLimit: string;
  latencyMs: string;
  confidential?: boolean;
  faultRate: string;
  arrivalsPerMinute: string;
  otherClientRpm: string;
  exoticValues?: boolean;
  verbose?: boolean;
  clockSkew: string;
  localTimeAsUtc?: string;
  servedPerPage?: string;
  nextPageOnFullPage?: boolean;
  perPageAsAsked?: boolean;
  hiddenFromLists: string;
  listTotalExcess: string;
  arrivalLag: string;
  windowMs: string;
  rateAlgorithm: string;
  burst?: string;
  retryAfter: string;
  revokeKeyAfter?: string;
  timeFormat: string;
  long: string;
  messyText: string;
  drift: string;
  deleted: string;
  messyConfig?: boolean;
  incident?: string[];
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not known — use one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** Seconds with a sign: `-7200`, `900`. */
function signedSeconds(flag: string, value: string, limit: number): number {
  const n = Number(value);
  if (!/^[+-]?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || Math.abs(n) > limit) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be whole seconds from -${limit} to ${limit}, e.g. -7200`);
  }
  return n;
}

/** A UTC offset `±HH:MM` (-05:00), as minutes. */
function utcOffsetMinutes(flag: string, value: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(value.trim());
  const minutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : NaN;
  if (!m || Number(m[3]) >= 60 || Math.abs(minutes) > 14 * 60) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a UTC offset from -14:00 to +14:00, e.g. -05:00`);
  }
  return minutes;
}

function decimal(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a number from ${min} to ${max}, e.g. 0.05`);
  }
  return n;
}

function describeRate(sim: Simulator): string {
  const { rateLimit, windowMs, rateAlgorithm, burst, retryAfter, revokeKeyAfter } = sim.options;
  const per = windowMs === 60_000 ? 'minute' : `${windowMs} ms`;
  let text =
    rateAlgorithm === 'bucket'
      ? `token bucket of ${burst} refilled at ${rateLimit} per ${per}`
      : `${rateLimit} requests per ${rateAlgorithm} ${per}`;
  if (retryAfter !== 'exact') text += `, Retry-After ${retryAfter}`;
  if (revokeKeyAfter !== null) text += `, key deleted after ${revokeKeyAfter} requests`;
  return text;
}

/** The real-data shares that are set, for the banner ('' when none is). */
function describeRealData(shares: { long: number; text: number; drift: number; deleted: number; configText: boolean }): string {
  const pct = (n: number): string => `${Math.round(n * 1000) / 10}%`;
  const parts: string[] = [];
  if (shares.long) parts.push(`${pct(shares.long)} long`);
  if (shares.text) parts.push(`${pct(shares.text)} messy text`);
  if (shares.drift) parts.push(`${pct(shares.drift)} type drift`);
  if (shares.deleted) parts.push(`${pct(shares.deleted)} deleted at the source`);
  if (shares.configText) parts.push('names cut mid-surrogate');
  return parts.length > 0 ? `, real data: ${parts.join(', ')}` : '';
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .summary('run a local simulator of the Agent Management API (demo and tests)')
    .description(
      'Serve a generated space (agents, tools, connections, weeks of conversations) on 127.0.0.1 with the ' +
        'API’s paging, filters, errors and rate limit. Flags play the readings the spec leaves open (page sizes, ' +
        'listing, rate-limit algorithm, 429s, a deleted key, timestamp formats). Prints the settings for `convoduck sync` on ' +
        'stdout, logs to stderr, and runs until Ctrl-C (or SIGTERM). The same --seed gives the same data and key.',
    )
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '8080')
    .option('--conversations <n>', 'conversations in the history', '5000')
    .option('--seed <n>', 'seed of the generated data and of the API key', '7')
    .option('--slug <slug>', 'the space’s slug (default: drawn from the seed, e.g. vandelay-support-7)')
    .option('--days <n>', 'days of history, ending now', '28')
    .option('--latency-ms <n>', 'delay before every response', '0')
    .option('--confidential', 'confidential space: no summary, transcript or recording_url')
    .option('--fault-rate <p>', 'share of requests that fail: 60% 5xx, 20% dropped, 20% truncated body', '0')
    .option('--arrivals-per-minute <n>', 'new conversations starting while it runs', '0')
    .option('--other-client-rpm <n>', 'another integration spending the same key’s budget, requests per minute', '0')
    .option('--recording-link-seconds <n>', 'how long each recording_url lives before its link answers 403', '300')
    .option('--exotic-values', 'add a few values the spec does not list (outbound, voicemail, rate_limited)')
    .option('--verbose', 'log every request on stderr')
    .option(
      '--incident <kind:days>',
      'plant an incident that many days ago (repeatable): tool-outage (a connection’s calls fail 08:00–16:00 UTC), quiet-day (a fifth of the volume), transfer-jump (an agent transfers 80% from then on)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .optionsGroup('Rate limit (the spec says only "60 requests per minute per key"):')
    .option('--rate-limit <n>', 'accepted requests per window per key (bucket: tokens refilled per window)', '60')
    .option('--window-ms <n>', 'length of the window in ms', '60000')
    .option(
      '--rate-algorithm <a>',
      'rolling: at most --rate-limit in any --window-ms; fixed: a window opened by its first request, ' +
        'Remaining falls to 0 and jumps back when it ends; bucket: a token bucket of --burst tokens',
      'rolling',
    )
    .option('--burst <n>', 'bucket size (default --rate-limit / 6, at least 1); starts full')
    .option('--retry-after <mode>', 'Retry-After of a 429: exact (whole seconds until one would pass), missing (no header), long (3 windows)', 'exact')
    .option('--revoke-key-after <n>', 'delete the key after n accepted requests: every later request gets 401 unauthenticated')
    .optionsGroup('Listing and timestamps (the spec leaves these open):')
    .option('--served-per-page <n>', 'serve at most n items per page whatever per_page asks; meta.per_page and next_page follow it')
    .option('--next-page-on-full-page', 'next_page is set whenever a page is full, even the last (the page after it is empty)')
    .option('--per-page-as-asked', 'meta.per_page says what was asked whatever --served-per-page serves (a page size misreported)')
    .option('--hidden-from-lists <n>', 'conversations counted in list totals but never listed (their detail is still served)', '0')
    .option('--list-total-excess <n>', 'every list answer counts N more conversations in meta.total than its window holds (a count off for good)', '0')
    .option('--arrival-lag <ms>', 'new conversations appear only once ended, started this long ago: inside windows a crawl already listed', '0')
    .option(
      '--time-format <f>',
      'every timestamp served as: as-generated, z, offset (a non-zero offset per record), ' +
        'fraction-z or fraction-offset (microseconds; the instants then fall inside the second)',
      'as-generated',
    )
    .option('--clock-skew <seconds>', 'the server’s clock is off by this much (negative: behind): its Date header and every time it writes', '0')
    .option('--local-time-as-utc <offset>', 'the server writes its local time in this zone (e.g. -05:00) marked +00:00; its Date header stays right')
    .optionsGroup('Real data (shares of the finished conversations, drawn from the seed):')
    .option('--long <share>', 'long conversations: 1,000–10,000 turns, tool calls with large JSON payloads', '0')
    .option('--messy-text <share>', 'hard text: emoji sequences, RTL, zero-width and control characters, NUL, a 100,000-character word, strings cut mid-surrogate', '0')
    .option('--drift <share>', 'type drift, 1–3 kinds each: numbers as strings or 12.0, null lists, missing or extra keys, unknown values, bad dates', '0')
    .option('--deleted <share>', 'deleted at the source after being listed: still listed, the detail answers 404', '0')
    .option('--messy-config', 'every agent, tool and connection name, agent prompt and workflow node title cut mid-surrogate')
    .addHelpText(
      'after',
      `
Walkthrough (under a minute: a small history, and a limit ten times the spec's):
  convoduck simulate --conversations 400 --rate-limit 600
Then, in another shell (paste the two export lines it printed):
  export CONVODUCK_BASE_URL=http://127.0.0.1:8080/api/v1
  export CONVODUCK_API_KEY=np_sim_...                  # as printed; depends on --seed
  convoduck sync
At the defaults (5000 conversations, 60 requests/min) the first sync takes over an hour, one
request per conversation at 60 a minute, as a real space would; \`convoduck check\` says how long.

More examples:
  convoduck simulate --rate-limit 600 --latency-ms 50 --fault-rate 0.05
  convoduck simulate --conversations 100000 --rate-limit 1000000 --port 0   # benchmark
  convoduck simulate --arrivals-per-minute 30 --confidential
  convoduck simulate --rate-algorithm bucket --burst 5 --retry-after missing   # a stricter gateway
  convoduck simulate --served-per-page 100 --hidden-from-lists 3 --arrivals-per-minute 60 --arrival-lag 600000
  convoduck simulate --time-format fraction-offset --revoke-key-after 300
  convoduck simulate --long 0.01 --messy-text 0.05 --drift 0.05 --deleted 0.01   # real-world data`,
    )
    .action(async (flags: SimulateFlags) => {
      const { RATE_ALGORITHMS, RETRY_AFTER_MODES, TIME_FORMATS, startSimulator } = await import('../../simulator/index.js');
      const port = wholeNumber('--port', flags.port, 0, 65535);
      const conversations = wholeNumber('--conversations', flags.conversations, 0, 5_000_000);
      const seed = wholeNumber('--seed', flags.seed, 0, 0xffffffff);
      const days = wholeNumber('--days', flags.days, 1, 3650);
      if (flags.slug !== undefined && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(flags.slug)) {
        throw new UsageError(`--slug ${JSON.stringify(flags.slug)} must be lower-case letters and digits, words joined by "-", e.g. acme-prod`);
      }
      const recordingLinkSeconds = wholeNumber('--recording-link-seconds', flags.recordingLinkSeconds, 0, 604_800);
      const rateLimit = wholeNumber('--rate-limit', flags.rateLimit, 1, 1_000_000_000);
      const windowMs = wholeNumber('--window-ms', flags.windowMs, 1, 86_400_000);
      const rateAlgorithm = oneOf('--rate-algorithm', flags.rateAlgorithm, RATE_ALGORITHMS);
      const burst = flags.burst === undefined ? undefined : wholeNumber('--burst', flags.burst, 1, 1_000_000_000);
      const retryAfter = oneOf('--retry-after', flags.retryAfter, RETRY_AFTER_MODES);
      const revokeKeyAfter = flags.revokeKeyAfter === undefined ? null : wholeNumber('--revoke-key-after', flags.revokeKeyAfter, 0, 1_000_000_000);
      const latencyMs = wholeNumber('--latency-ms', flags.latencyMs, 0, 600_000);
      const faultRate = decimal('--fault-rate', flags.faultRate, 0, 1);
      const arrivalsPerMinute = decimal('--arrivals-per-minute', flags.arrivalsPerMinute, 0, 600_000);
      const otherClientRpm = decimal('--other-client-rpm', flags.otherClientRpm, 0, 600_000);
      const servedPerPage = flags.servedPerPage === undefined ? null : wholeNumber('--served-per-page', flags.servedPerPage, 1, 200);
      const hiddenFromLists = wholeNumber('--hidden-from-lists', flags.hiddenFromLists, 0, 5_000_000);
      const listTotalExcess = wholeNumber('--list-total-excess', flags.listTotalExcess, 0, 5_000_000);
      const timeFormat = oneOf('--time-format', flags.timeFormat, TIME_FORMATS);
      const arrivalLagMs = wholeNumber('--arrival-lag', flags.arrivalLag, 0, 30 * 86_400_000);
      const incidents = parseIncidentFlags(flags.incident);
      const clockSkewSeconds = signedSeconds('--clock-skew', flags.clockSkew, 366 * 86_400);
      const localTimeAsUtcMinutes = flags.localTimeAsUtc === undefined ? 0 : utcOffsetMinutes('--local-time-as-utc', flags.localTimeAsUtc);
      const realData = {
        long: decimal('--long', flags.long, 0, 1),
        text: decimal('--messy-text', flags.messyText, 0, 1),
        drift: decimal('--drift', flags.drift, 0, 1),
        deleted: decimal('--deleted', flags.deleted, 0, 1),
        configText: flags.messyConfig === true,
      };
      const log = (line: string): void => {
        process.stderr.write(`convoduck simulate: ${line}\n`);
      };

      log(`generating ${conversations} conversations over ${days} days (seed ${seed})…`);
      let sim: Simulator;
      try {
        sim = await startSimulator({
          port,
          seed,
          ...(flags.slug !== undefined ? { spaceSlug: flags.slug } : {}),
          conversations,
          days,
          rateLimit,
          windowMs,
          rateAlgorithm,
          burst,
          retryAfter,
          revokeKeyAfter,
          latency: { listMs: latencyMs, detailMs: latencyMs, otherMs: latencyMs },
          faults: { error5xx: faultRate * 0.6, drop: faultRate * 0.2, truncate: faultRate * 0.2 },
          confidential: flags.confidential ?? false,
          exoticValues: flags.exoticValues ?? false,
          incidents,
          arrivalsPerMinute,
          otherClientRpm,
          servedPerPage,
          nextPageOnFullPage: flags.nextPageOnFullPage ?? false,
          perPageAsAsked: flags.perPageAsAsked ?? false,
          hiddenFromLists,
          listTotalExcess,
          arrivalLagMs,
          recordingLinkSeconds,
          timeFormat,
          realData,
          clockSkewSeconds,
          localTimeAsUtcMinutes,
          autoFinish: true,
          // A long-running demo must not grow without bound: the log is only read here.
          logRequests: false,
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new UsageError(`port ${port} is already in use: pick another with --port N, or --port 0 for a free one`);
        if (code === 'EACCES') throw new UsageError(`port ${port} needs privileges: use a port above 1023, e.g. --port 8080`);
        throw err;
      }

      process.stdout.write(`export CONVODUCK_BASE_URL=${sim.baseUrl}\nexport CONVODUCK_API_KEY=${sim.apiKey}\n`);
      log(
        `space "${sim.space}" on ${sim.baseUrl}: ${describeRate(sim)}` +
          (latencyMs ? `, ${latencyMs} ms latency` : '') +
          (faultRate ? `, ${Math.round(faultRate * 1000) / 10}% faults` : '') +
          (flags.confidential ? ', confidential' : '') +
          (arrivalsPerMinute ? `, ${arrivalsPerMinute} new conversations/min` : '') +
          (otherClientRpm ? `, another client at ${otherClientRpm} requests/min` : '') +
          (clockSkewSeconds ? `, its clock ${Math.abs(clockSkewSeconds)} s ${clockSkewSeconds < 0 ? 'behind' : 'ahead'}` : '') +
          (flags.localTimeAsUtc ? `, local time of UTC${flags.localTimeAsUtc} written as +00:00` : '') +
          describeRealData(realData) +
          '. Ctrl-C to stop.',
      );

      let requests = 0;
      let throttled = 0;
      let lastReported = 0;
      sim.setOptions({
        onRequest: (e) => {
          if (e.client !== 'key') return;
          requests++;
          if (e.status === 429) throttled++;
          if (flags.verbose) {
            const q = new URLSearchParams(e.query).toString();
            log(`${e.method} ${e.path}${q ? `?${q}` : ''} -> ${e.status || 'dropped'}${e.fault ? ` (${e.fault})` : ''}`);
          }
        },
      });

      const stats = setInterval(() => {
        if (requests === lastReported) return;
        lastReported = requests;
        const open = sim.dataset.openRecords().length;
        log(`${requests} requests so far (${throttled} rate-limited), ${sim.dataset.records.length} conversations, ${open} in progress`);
      }, 30_000);

      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          log(`${signal}: stopping after ${requests} requests`);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      clearInterval(stats);
      await sim.close();
    });
}
