// Personal-data detection (#27): precision and recall per kind over the labelled corpus
// (test/corpus/personal-data), and redaction throughput on transcript text.
//
// Throughput is measured on two texts: the simulator's transcript turns and summaries as they
// are (few digits, no "@": mostly the prefilters' fast path), and the corpus lines (every line
// holds a datum or a look-alike: every detector's regex runs). Both are redacted in one process,
// after a warm-up pass, repeated until a second has passed.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { redactText } from '../redact/index.js';
import { detectPersonalData } from '../redact/detect.js';
import { parseLabelled, scoreCorpus, type CorpusScore } from '../redact/labelled.js';
import { PERSONAL_KINDS } from '../redact/spans.js';
import { generateDataset } from '../simulator/index.js';
import { fixed } from './measure.js';
import { int, table, type Goal } from './print.js';

export interface Throughput {
  texts: number;
  mb: number;
  seconds: number;
  mbPerSec: number;
  textsPerSec: number;
  /** share of texts that redactText changed */
  changed: number;
}

export interface RedactResult {
  corpus: Omit<CorpusScore, 'errors'> & { files: string[]; errors: number };
  transcripts: Throughput;
  corpusLines: Throughput;
}

// dist/bench/redact.js and src/bench/redact.ts both sit two levels below the package root
const CORPUS = new URL('../../test/corpus/personal-data/', import.meta.url);

export function benchRedact(conversations: number, log: (s: string) => void): RedactResult {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.tsv')).sort();
  const lines = files.flatMap((f) => parseLabelled(readFileSync(new URL(f, CORPUS), 'utf8'), f));
  const { errors, ...score } = scoreCorpus(lines, (text) => detectPersonalData(text));
  log(`redact: corpus of ${lines.length} lines from ${fileURLToPath(CORPUS)}`);

  log(`redact: generating ${conversations} conversations for transcript text`);
  const dataset = generateDataset({ seed: 27, conversations, now: new Date('2026-11-20T12:00:00Z') });
  const texts: string[] = [];
  for (const rec of dataset.records) {
    const detail = dataset.detail(rec.id);
    if (detail?.summary) texts.push(detail.summary);
    for (const turn of detail?.transcript ?? []) texts.push(turn.text);
  }
  return {
    corpus: { files, ...score, errors: errors.length },
    transcripts: throughput(texts),
    corpusLines: throughput(lines.map((l) => l.text)),
  };
}

function throughput(texts: string[]): Throughput {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  let changed = 0;
  for (const t of texts) if (redactText(t) !== t) changed++; // warm-up, and the share changed
  let rounds = 0;
  const t0 = performance.now();
  let seconds = 0;
  do {
    for (const t of texts) redactText(t);
    rounds++;
    seconds = (performance.now() - t0) / 1000;
  } while (seconds < 1);
  return {
    texts: texts.length,
    mb: bytes / 2 ** 20,
    seconds,
    mbPerSec: (rounds * bytes) / 2 ** 20 / seconds,
    textsPerSec: (rounds * texts.length) / seconds,
    changed: changed / texts.length,
  };
}

export function printRedact(r: RedactResult, goals: Goal[]): void {
  const c = r.corpus;
  const lookalikes = Object.values(c.lookalikes).reduce((a, b) => a + b, 0);
  console.log(`\n10. Personal-data detection (#27): labelled corpus of ${int(c.lines)} lines (${c.files.join(', ')})`);
  console.log(
    table(
      ['kind', 'labelled', 'found', 'true pos.', 'false pos.', 'precision', 'recall'],
      PERSONAL_KINDS.map((k) => {
        const s = c.byKind[k];
        return [k, int(s.truth), int(s.found), int(s.truePositives), int(s.falsePositives), fixed(s.precision, 4), fixed(s.recall, 4)];
      }),
    ),
  );
  console.log(
    `     look-alikes: ${int(lookalikes)} (${Object.entries(c.lookalikes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}); touched: ${c.touched.length}\n` +
      `     documented misses (not counted): ${Object.entries(c.misses)
        .map(([k, m]) => `${k} ${m.count}${m.caught > 0 ? ` (${m.caught} caught anyway)` : ''}`)
        .join(', ')}\n` +
      '     a hit is an exact span of the right kind; precision counts every detection on the corpus lines.',
  );
  console.log(
    table(
      ['redactText over', 'texts', 'MB', 'changed', 'MB/s', 'texts/s'],
      [
        ['simulator transcripts + summaries', r.transcripts],
        ['corpus lines (all dense)', r.corpusLines],
      ].map(([name, t]) => {
        const x = t as Throughput;
        return [name as string, int(x.texts), fixed(x.mb, 2), `${fixed(x.changed * 100, 1)} %`, fixed(x.mbPerSec, 1), int(x.textsPerSec)];
      }),
    ),
  );
  console.log('     one core, in process, after a warm-up pass; repeated for at least one second.');
  for (const k of PERSONAL_KINDS) {
    goals.push({ what: `redaction recall, ${k}`, goal: '≥ 0.99', measured: fixed(c.byKind[k].recall, 4), met: c.byKind[k].recall >= 0.99 });
  }
  goals.push({ what: 'redaction look-alikes touched', goal: '0', measured: String(c.touched.length), met: c.touched.length === 0 });
}
