import type { Command } from 'commander';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { UsageError } from '../errors.js';

interface SimulateFlags {
  port: string;
  conversations: string;
  seed: string;
  days: string;
  rateLimit: string;
  latencyMs: string;
  confidential?: boolean;
  faultRate: string;
  arrivalsPerMinute: string;
  otherClientRpm: string;
  exoticValues?: boolean;
  verbose?: boolean;
}

function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

function decimal(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a number from ${min} to ${max}, e.g. 0.05`);
  }
  return n;
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .summary('run a local simulator of the Agent Management API (demo and tests)')
    .description(
      'Serve a generated space (agents, tools, connections, weeks of conversations) on 127.0.0.1 with the ' +
        'API’s paging, filters, errors and rolling rate limit. Prints the settings for `convoduck sync` on ' +
        'stdout, logs to stderr, and runs until Ctrl-C (or SIGTERM). The same --seed gives the same data and key.',
    )
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '8080')
    .option('--conversations <n>', 'conversations in the history', '5000')
    .option('--seed <n>', 'seed of the generated data and of the API key', '7')
    .option('--days <n>', 'days of history, ending now', '28')
    .option('--rate-limit <n>', 'accepted requests per rolling minute per key (like the real API)', '60')
    .option('--latency-ms <n>', 'delay before every response', '0')
    .option('--confidential', 'confidential space: no summary, transcript or recording_url')
    .option('--fault-rate <p>', 'share of requests that fail: 60% 5xx, 20% dropped, 20% truncated body', '0')
    .option('--arrivals-per-minute <n>', 'new conversations starting while it runs', '0')
    .option('--other-client-rpm <n>', 'another integration spending the same key’s budget, requests per minute', '0')
    .option('--exotic-values', 'add a few values the spec does not list (outbound, voicemail, rate_limited)')
    .option('--verbose', 'log every request on stderr')
    .addHelpText(
      'after',
      `
Examples:
  convoduck simulate                                   # 5000 conversations on :8080, 60 requests/min
  convoduck simulate --rate-limit 600 --latency-ms 50 --fault-rate 0.05
  convoduck simulate --conversations 100000 --rate-limit 1000000 --port 0   # benchmark
  convoduck simulate --arrivals-per-minute 30 --confidential

Then, in another shell (paste the two export lines it printed):
  export CONVODUCK_BASE_URL=http://127.0.0.1:8080/api/v1
  export CONVODUCK_API_KEY=np_sim_...                  # as printed; depends on --seed
  convoduck sync`,
    )
    .action(async (flags: SimulateFlags) => {
      const port = wholeNumber('--port', flags.port, 0, 65535);
      const conversations = wholeNumber('--conversations', flags.conversations, 0, 5_000_000);
      const seed = wholeNumber('--seed', flags.seed, 0, 0xffffffff);
      const days = wholeNumber('--days', flags.days, 1, 3650);
      const rateLimit = wholeNumber('--rate-limit', flags.rateLimit, 1, 1_000_000_000);
      const latencyMs = wholeNumber('--latency-ms', flags.latencyMs, 0, 600_000);
      const faultRate = decimal('--fault-rate', flags.faultRate, 0, 1);
      const arrivalsPerMinute = decimal('--arrivals-per-minute', flags.arrivalsPerMinute, 0, 600_000);
      const otherClientRpm = decimal('--other-client-rpm', flags.otherClientRpm, 0, 600_000);
      const log = (line: string): void => {
        process.stderr.write(`convoduck simulate: ${line}\n`);
      };

      log(`generating ${conversations} conversations over ${days} days (seed ${seed})…`);
      let sim: Simulator;
      try {
        sim = await startSimulator({
          port,
          seed,
          conversations,
          days,
          rateLimit,
          latency: { listMs: latencyMs, detailMs: latencyMs, otherMs: latencyMs },
          faults: { error5xx: faultRate * 0.6, drop: faultRate * 0.2, truncate: faultRate * 0.2 },
          confidential: flags.confidential ?? false,
          exoticValues: flags.exoticValues ?? false,
          arrivalsPerMinute,
          otherClientRpm,
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
        `space "${sim.space}" on ${sim.baseUrl}: ${rateLimit} requests per rolling minute` +
          (latencyMs ? `, ${latencyMs} ms latency` : '') +
          (faultRate ? `, ${Math.round(faultRate * 1000) / 10}% faults` : '') +
          (flags.confidential ? ', confidential' : '') +
          (arrivalsPerMinute ? `, ${arrivalsPerMinute} new conversations/min` : '') +
          (otherClientRpm ? `, another client at ${otherClientRpm} requests/min` : '') +
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
