// Personal-data detection (#27, #48): precision and recall per kind over the labelled corpora
// of typed (test/corpus/personal-data) and spoken (test/corpus/spoken) personal data, as written
// and with every labelled span enclosed in brackets or quotes, before punctuation and at line
// breaks (labelled-variants.ts), and redaction throughput on transcript text.
//
// Throughput is measured on two texts: the simulator's transcript turns and summaries as they
// are (few digits, no "@": mostly the prefilters' fast path), and the corpus lines (every line
// holds a datum or a look-alike: every detector's regex runs). Both are redacted in one process,
// after a warm-up pass, repeated until a second has passed.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { redactText } from '../redact/index.js';
import { detectPersonalData } from '../redact/detect.js';
import { parseLabelled, scoreCorpus, type CorpusScore, type LabelledLine } from '../redact/labelled.js';
import { wrappedVariants } from '../redact/labelled-variants.js';
import { PERSONAL_KINDS } from '../redact/spans.js';
import { generateDataset } from '../simulator/index.js';
import { fixed } from './measure.js';
import { int, table, type Goal } from './print.js';

export interface Throughput {
  texts: number;
  mb: number;
  seconds: number;
  mbPerSec: number;
  /** per second of this process's CPU time: what a busy shared machine does not change much */
  cpuMbPerSec: number;
  textsPerSec: number;
  /** share of texts that redactText changed */
  changed: number;
}

type Scored = Omit<CorpusScore, 'errors'> & { errors: number };

export interface RedactResult {
  corpus: Scored & { files: string[] };
  /** the corpus lines rewritten with every labelled span enclosed, punctuated, at line breaks */
  wrapped: Scored;
  /** the spoken corpus (#48), as written and enclosed */
  spoken: Scored & { files: string[] };
  spokenWrapped: Scored;
  transcripts: Throughput;
  corpusLines: Throughput;
  spokenLines: Throughput;
}

// dist/bench/redact.js and src/bench/redact.ts both sit two levels below the package root
const CORPUS = new URL('../../test/corpus/personal-data/', import.meta.url);
const SPOKEN = new URL('../../test/corpus/spoken/', import.meta.url);

function readCorpus(dir: URL): { files: string[]; lines: LabelledLine[] } {
  const files = readdirSync(dir).filter((f) => f.endsWith('.tsv')).sort();
  return { files, lines: files.flatMap((f) => parseLabelled(readFileSync(new URL(f, dir), 'utf8'), f)) };
}

export function benchRedact(conversations: number, log: (s: string) => void): RedactResult {
  const { files, lines } = readCorpus(CORPUS);
  log(`redact: corpus of ${lines.length} lines from ${fileURLToPath(CORPUS)}`);
  const corpus = score(lines);
  const variants = wrappedVariants(lines);
  log(`redact: ${variants.length} variants of its lines with every labelled span enclosed, punctuated, at line breaks`);
  const wrapped = score(variants);
  const said = readCorpus(SPOKEN);
  log(`redact: spoken corpus of ${said.lines.length} lines from ${fileURLToPath(SPOKEN)}`);
  const spoken = score(said.lines);
  const spokenWrapped = score(wrappedVariants(said.lines));

  log(`redact: generating ${conversations} conversations for transcript text`);
  const dataset = generateDataset({ seed: 27, conversations, now: new Date('2026-11-20T12:00:00Z') });
  const texts: string[] = [];
  for (const rec of dataset.records) {
    const detail = dataset.detail(rec.id);
    if (detail?.summary) texts.push(detail.summary);
    for (const turn of detail?.transcript ?? []) texts.push(turn.text);
  }
  return {
    corpus: { files, ...corpus },
    wrapped,
    spoken: { files: said.files, ...spoken },
    spokenWrapped,
    transcripts: throughput(texts),
    corpusLines: throughput(lines.map((l) => l.text)),
    spokenLines: throughput(said.lines.map((l) => l.text)),
  };
}

function score(lines: readonly LabelledLine[]): Scored {
  const { errors, ...rest } = scoreCorpus(lines, (text) => detectPersonalData(text));
  return { ...rest, errors: errors.length };
}

function throughput(texts: string[]): Throughput {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  let changed = 0;
  for (const t of texts) if (redactText(t) !== t) changed++; // warm-up, and the share changed
  let rounds = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let seconds = 0;
  do {
    for (const t of texts) redactText(t);
    rounds++;
    seconds = (performance.now() - t0) / 1000;
  } while (seconds < 1);
  const cpu = process.cpuUsage(cpu0);
  return {
    texts: texts.length,
    mb: bytes / 2 ** 20,
    seconds,
    mbPerSec: (rounds * bytes) / 2 ** 20 / seconds,
    cpuMbPerSec: (rounds * bytes) / 2 ** 20 / ((cpu.user + cpu.system) / 1e6),
    textsPerSec: (rounds * texts.length) / seconds,
    changed: changed / texts.length,
  };
}

export function printRedact(r: RedactResult, goals: Goal[]): void {
  const c = r.corpus;
  const lookalikes = Object.values(c.lookalikes).reduce((a, b) => a + b, 0);
  console.log(`\n10. Personal-data detection (#27): labelled corpus of ${int(c.lines)} lines (${c.files.join(', ')})`);
  console.log(kindTable(c));
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
  const w = r.wrapped;
  console.log(
    `     the same lines, every labelled span in ( ) [ ] < > " " ' ' « » or none, before . , ; : ! ? or nothing, and at\n` +
      `     the start or end of a line, after or before a line break: ${int(w.lines)} lines; look-alikes touched: ${w.touched.length}`,
  );
  console.log(kindTable(w));
  console.log(
    table(
      ['redactText over', 'texts', 'MB', 'changed', 'MB/s', 'MB/s of CPU', 'texts/s'],
      [
        ['simulator transcripts + summaries', r.transcripts],
        ['corpus lines (all dense)', r.corpusLines],
        ['spoken corpus lines', r.spokenLines],
      ].map(([name, t]) => {
        const x = t as Throughput;
        return [name as string, int(x.texts), fixed(x.mb, 2), `${fixed(x.changed * 100, 1)} %`, fixed(x.mbPerSec, 1), fixed(x.cpuMbPerSec, 1), int(x.textsPerSec)];
      }),
    ),
  );
  console.log('     one core, in process, after a warm-up pass; repeated for at least one second; MB/s of CPU: per second of the process\'s CPU time.');
  const s = r.spoken;
  const spokenLookalikes = Object.values(s.lookalikes).reduce((a, b) => a + b, 0);
  console.log(`     spoken (#48): labelled corpus of ${int(s.lines)} lines (${s.files.join(', ')}); look-alikes: ${int(spokenLookalikes)}, touched: ${s.touched.length}`);
  console.log(kindTable(s));
  console.log(`     the same lines enclosed, punctuated and at line breaks: ${int(r.spokenWrapped.lines)} lines; look-alikes touched: ${r.spokenWrapped.touched.length}`);
  console.log(kindTable(r.spokenWrapped));
  for (const k of PERSONAL_KINDS) {
    goals.push({ what: `redaction recall, ${k}`, goal: '≥ 0.99', measured: fixed(c.byKind[k].recall, 4), met: c.byKind[k].recall >= 0.99 });
  }
  goals.push({ what: 'redaction look-alikes touched', goal: '0', measured: String(c.touched.length), met: c.touched.length === 0 });
  for (const k of PERSONAL_KINDS) {
    const recall = w.byKind[k].recall;
    goals.push({ what: `redaction recall, ${k}, enclosed and punctuated`, goal: '≥ 0.99', measured: fixed(recall, 4), met: recall >= 0.99 });
  }
  goals.push({ what: 'redaction look-alikes touched, enclosed and punctuated', goal: '0', measured: String(w.touched.length), met: w.touched.length === 0 });
  for (const [label, sc] of [['spoken', r.spoken], ['spoken, enclosed and punctuated', r.spokenWrapped]] as const) {
    for (const k of PERSONAL_KINDS) {
      goals.push({ what: `redaction recall, ${k}, ${label}`, goal: '≥ 0.99', measured: fixed(sc.byKind[k].recall, 4), met: sc.byKind[k].recall >= 0.99 });
    }
    goals.push({ what: `redaction look-alikes touched, ${label}`, goal: '0', measured: String(sc.touched.length), met: sc.touched.length === 0 });
  }
}

function kindTable(c: Scored): string {
  return table(
    ['kind', 'labelled', 'found', 'true pos.', 'false pos.', 'precision', 'recall'],
    PERSONAL_KINDS.map((k) => {
      const s = c.byKind[k];
      return [k, int(s.truth), int(s.found), int(s.truePositives), int(s.falsePositives), fixed(s.precision, 4), fixed(s.recall, 4)];
    }),
  );
}
