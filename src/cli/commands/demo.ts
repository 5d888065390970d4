import type { Command } from 'commander';
import { rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { preferSmallHeap } from '../../shared/heap.js';
import { parsePositiveInt } from '../parse.js';
import { formatDuration, progressPrinter } from '../sync/progress.js';
import { fileLine, loadHtmlReport, rowsOf } from './report-html.js';
import { createOutputDir } from '../../shared/output-dir.js';

/** The demo's report.html covers this many days (the simulator holds 28). */
const DEMO_PAGE_DAYS = 14;

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .summary('the whole job end to end against the built-in simulator (sync, every report, report.html, a digest)')
    .description(
      'Start the API simulator on a loopback port, sync its conversations into demo/convoduck.duckdb, ' +
        'write every report to reports/ and the page reports/report.html (the last 14 days), and ' +
        'print a digest with queries to try. Nothing keeps running afterwards; the demo database ' +
        'is replaced on every run.',
    )
    .option('--conversations <n>', 'how many conversations the simulator holds', '3000')
    .option('--seed <n>', 'simulator seed (same seed, same data)', '7')
    .option('--dir <dir>', 'where the demo database goes', 'demo')
    .option('--out <dir>', 'where the reports go', 'reports')
    .addHelpText('after', '\nExamples:\n  npm run demo\n  convoduck demo --conversations 10000 --seed 3')
    .action(async (flags: { conversations: string; seed: string; dir: string; out: string }) => {
      const conversations = parsePositiveInt('--conversations', flags.conversations);
      const seed = parsePositiveInt('--seed', flags.seed);
      const started = Date.now();
      const dbDir = resolve(flags.dir);
      const dbPath = resolve(dbDir, 'convoduck.duckdb');
      const outDir = resolve(flags.out);
      const [{ startSimulator }, { sync }, { runReports }, { writeDemoDigest }] = await Promise.all([
        import('../../simulator/index.js'),
        import('../../crawler/sync.js'),
        import('../../reports/index.js'),
        import('../../query/demo-digest.js'),
      ]);
      createOutputDir(dbDir, 0o700, { flag: '--dir' });
      rmSync(dbPath, { force: true });
      rmSync(`${dbPath}.wal`, { force: true });

      // A raised limit: the real API's 60 requests a minute would make the demo take an hour.
      const sim = await startSimulator({ seed, conversations, rateLimit: 100_000 });
      const err = process.stderr;
      let page: { path: string } | undefined;
      try {
        err.write(`simulator: ${conversations} conversations at ${sim.baseUrl} (seed ${seed})\n`);
        const progress = progressPrinter();
        preferSmallHeap();
        const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, onProgress: progress.update });
        progress.finish();
        err.write(
          `sync: ${summary.conversationsListed} conversations, ${summary.detailsFetched} details, ` +
            `${summary.requests} requests in ${formatDuration(summary.seconds)} → ${relative(process.cwd(), dbPath)}\n`,
        );
        const reports = await runReports({ dbPath, outDir });
        for (const r of reports) err.write(fileLine(r.name, rowsOf(r.rows), r.path));
        // The page covers the second half of the simulated history, so its tiles have a period to compare with.
        const now = sim.clock();
        const from = new Date(now.getTime() - DEMO_PAGE_DAYS * 86_400_000);
        page = await (await loadHtmlReport())({ dbPath, outDir, now, filters: { from: { instant: from } } });
        err.write(fileLine('report.html', `last ${DEMO_PAGE_DAYS} days, compared with the ${DEMO_PAGE_DAYS} before`, page.path));
      } finally {
        await sim.close();
      }

      const out = process.stdout;
      await writeDemoDigest(dbPath, outDir, out);
      const db = relative(process.cwd(), dbPath);
      out.write(
        `\nDone in ${formatDuration((Date.now() - started) / 1000)}. Reports: ${relative(process.cwd(), outDir) || '.'}/*.csv.\n` +
          `Open ${relative(process.cwd(), page!.path)} in a browser: the last ${DEMO_PAGE_DAYS} days on one page. Try:\n` +
          `  npx convoduck query --db ${db} "SELECT agent_name, count(*) AS n FROM conversations_named GROUP BY ALL ORDER BY n DESC"\n` +
          `  npx convoduck query --db ${db} "SELECT agent_name, outcome, count(*) AS n FROM conversations_named GROUP BY ALL ORDER BY ALL"\n` +
          `  npx convoduck query --db ${db} "SELECT speaker, text FROM transcript_turns WHERE conversation_id = (SELECT id FROM conversations WHERE outcome = 'transferred' LIMIT 1) ORDER BY seq"\n` +
          `  npx convoduck query --db ${db} --format json "SELECT slug, status, count(*) AS calls FROM tool_calls GROUP BY ALL ORDER BY calls DESC LIMIT 5"\n`,
      );
    });
}
