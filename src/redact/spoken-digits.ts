// Numbers as a speech recogniser writes them, turned into digits: runs of digit words in English
// and German ("four one five", "null eins fünf eins"), "oh", "double"/"triple"/"doppel", tens
// and teens ("twenty one", "dreiundzwanzig"), hundreds ("nine hundred"), digits written one by
// one ("4 1 5 5"), and mixes of these, joined by spaces, commas, dashes, pauses ("…") or
// "and"/"und". Pure: spoken.ts judges each run as the typed detectors judge digits.

/** One spoken group of a run: the text it covers and the digits it stands for. */
export interface SpokenUnit {
  start: number;
  end: number;
  digits: string;
  /** a word (not a digit written as such) */
  word: boolean;
  /** the word "oh", which is also what people say before they start */
  oh: boolean;
  /** a ten or teen said as one number ("twenty one", "dreiundzwanzig"), as prices and years are said */
  pair: boolean;
}

/** A run of units with nothing but separators between them, and a "plus" before it if one was said. */
export interface SpokenRun {
  units: SpokenUnit[];
  /** where "plus" or "+" stands before the first unit, or -1 */
  plusAt: number;
}

const UNITS: Record<string, string> = {
  zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
  null: '0', eins: '1', zwei: '2', zwo: '2', drei: '3', vier: '4', fünf: '5', fuenf: '5', sechs: '6', sieben: '7', acht: '8', neun: '9',
};
const TEENS: Record<string, string> = {
  ten: '10', eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18', nineteen: '19',
  zehn: '10', elf: '11', zwölf: '12', zwoelf: '12', dreizehn: '13', vierzehn: '14', fünfzehn: '15', fuenfzehn: '15', sechzehn: '16', siebzehn: '17', achtzehn: '18', neunzehn: '19',
};
const TENS: Record<string, string> = {
  twenty: '2', thirty: '3', forty: '4', fifty: '5', sixty: '6', seventy: '7', eighty: '8', ninety: '9',
  zwanzig: '2', dreißig: '3', dreissig: '3', vierzig: '4', fünfzig: '5', fuenfzig: '5', sechzig: '6', siebzig: '7', achtzig: '8', neunzig: '9',
};
const REPEAT: Record<string, number> = { double: 2, triple: 3, doppel: 2, doppelt: 2, dreifach: 3 };
const HUNDRED = new Set(['hundred', 'hundert']);
// "einundzwanzig", "neunhundert": German writes these as one word
const DE_UNIT = 'ein|eins|zwei|drei|vier|fünf|fuenf|sechs|sieben|acht|neun';
const DE_COMPOUND = new RegExp(`^(${DE_UNIT})(?:und(${Object.keys(TENS).filter((t) => /ig$/.test(t)).join('|')})|(hundert))$`);

// Every word that can be part of a spoken number, as one alternation, and digits; a "+" may
// stand before digits. Everything else is skipped by the regex engine, not by JavaScript.
const WORDS = [...Object.keys(UNITS), ...Object.keys(TEENS), ...Object.keys(TENS), ...Object.keys(REPEAT), ...HUNDRED, 'plus']
  .sort((a, b) => b.length - a.length)
  .join('|');
// Latin letters (with accents) and digits stand for \\p{L}\\p{N} here: Unicode mode makes this regex
// several times slower, and a number word glued to a Greek or Cyrillic letter is no matter.
const GLUED = 'A-Za-z0-9_\\u00C0-\\u024F';
const TOKEN = new RegExp(`(?<![${GLUED}])(?:\\+?\\d+|(?:${DE_UNIT})und(?:zwanzig|dreißig|dreissig|vierzig|fünfzig|fuenfzig|sechzig|siebzig|achtzig|neunzig)|(?:${DE_UNIT})hundert|${WORDS})(?![${GLUED}])`, 'gi');
/** What may stand between two units of one run: spaces, a comma, a dash, a pause, "and"/"und". */
const GAP = /^(?:[ \t,\-–…]|\.{3}|\.(?= )){0,4}(?:(?:and|und)(?:[ \t,\-–…]|\.{3}){1,3})?$/i;
/** The gap after "double"/"doppel" and "hundred"'s number: a space or a hyphen ("doppel-null"). */
const TIGHT = /^[ \-]{1,2}$/;

// Every word TOKEN matches holds one of these (a compound its unit or its tens), lower case.
const STEMS = 'zero|oh|one|two|thr|thi|fou|for|teen|fiv|six|sev|eig|nin|ten|ele|twe|fif|null|ein|zwei|zwo|drei|vier|fünf|fuenf|sech|sieb|acht|neun|zehn|elf|zwölf|zwoelf|zig|ßig|ssig|hundert|hundred|doub|trip|dopp|dreif|plus';
const RE2_TOKEN = `[a-zäöüß0-9+]*(?:${STEMS}|[0-9])[a-zäöüß0-9]*`;
const RE2_GAP = '[ \\t,\\-–….]{1,4}(?:(?:and|und)[ \\t,\\-–….]{1,3})?';
/**
 * For SQL (RE2, over lower-cased text): matches every text in which spokenRuns can find a run of
 * three tokens, and more besides. A store searches with it before running the detector.
 */
export const SPOKEN_RUN_RE2 = `${RE2_TOKEN}${RE2_GAP}${RE2_TOKEN}${RE2_GAP}${RE2_TOKEN}`;

// The same words and digits with ASCII word boundaries, three in a row with separators between:
// one regex test that most text fails at native speed (TOKEN with its Unicode lookbehind is
// several times slower). A pause may be longer here than in a run.
// The words as a trie on their first letter: the regex engine then rejects most positions at once.
const LOOSE_WORDS = (() => {
  const compound = `(?:und(?:${Object.keys(TENS).filter((t) => /ig$/.test(t)).join('|')})|hundert)?`;
  const words = [...Object.keys(UNITS), ...Object.keys(TEENS), ...Object.keys(TENS), ...Object.keys(REPEAT), ...HUNDRED, 'plus', 'ein'];
  const byFirst = new Map<string, string[]>();
  for (const w of new Set(words)) byFirst.set(w[0]!, [...(byFirst.get(w[0]!) ?? []), w.slice(1)]);
  return [...byFirst]
    .map(([first, rests]) => `${first}(?:${rests.sort((a, b) => b.length - a.length).join('|')})${compound}`)
    .join('|');
})();
// A digit counts alone ("4 1 5"): typed groups ("030 1234567", "4111 1111 1111") are the typed
// detectors', and text full of them would otherwise pass. So a mix needs three words or single
// digits in a row somewhere ("415 five five five 0198").
const LOOSE_TOKEN = `\\b(?:\\d|${LOOSE_WORDS})\\b`;
const LOOSE_GAP = '[ \\t,\\-–….]{1,8}(?:(?:and|und)[ \\t,\\-–….]{1,8})?';
export const THREE_IN_A_ROW = new RegExp(`${LOOSE_TOKEN}${LOOSE_GAP}${LOOSE_TOKEN}${LOOSE_GAP}${LOOSE_TOKEN}`, 'i');

/** A cheap test: false when the text cannot hold a run of three spoken or spaced number tokens. */
export function mayHoldSpokenNumber(text: string): boolean {
  return THREE_IN_A_ROW.test(text);
}

interface Token {
  start: number;
  end: number;
  lower: string;
  /** the digit a unit word says, or undefined: looked up once per token */
  unit: string | undefined;
}

// one lookup per token instead of one per table
const UNIT = new Map(Object.entries(UNITS));

/** The runs of spoken or spaced numbers in the text, each of at least `minUnits` units. */
export function spokenRuns(text: string, minUnits: number): SpokenRun[] {
  const runs: SpokenRun[] = [];
  let row: Token[] = [];
  const flush = () => {
    if (row.length >= minUnits) {
      for (const run of unitsOf(text, row)) if (run.units.length >= minUnits) runs.push(run);
    }
    row = [];
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const lower = m[0].toLowerCase();
    const t = { start: m.index, end: m.index + m[0].length, lower, unit: UNIT.get(lower) };
    const prev = row.at(-1);
    if (prev && !GAP.test(text.slice(prev.end, t.start))) flush();
    row.push(t);
  }
  flush();
  return runs;
}

// The tokens of one row read as units: "double oh" is one unit "00", "twenty one" one unit
// "21", "nine hundred" one unit "900" ("nine hundred twelve" one unit "912"); a leading "plus"
// or "+" marks a run international. A "plus" inside a row, or a "hundred" or "double" that
// multiplies nothing, splits the row in two.
function unitsOf(text: string, row: Token[]): SpokenRun[] {
  const runs: SpokenRun[] = [];
  let run: SpokenRun = { units: [], plusAt: -1 };
  let repeat = 1;
  let repeatAt = -1;
  const split = () => {
    if (run.units.length > 0) runs.push(run);
    run = { units: [], plusAt: -1 };
    repeat = 1;
    repeatAt = -1;
  };
  const push = (start: number, end: number, digits: string, word: boolean, oh = false, pair = false) => {
    run.units.push({ start: repeatAt >= 0 ? repeatAt : start, end, digits: digits.repeat(repeat), word: word || repeatAt >= 0, oh: oh && repeatAt < 0, pair });
    repeat = 1;
    repeatAt = -1;
  };
  for (let i = 0; i < row.length; i++) {
    const t = row[i]!;
    const w = t.lower;
    const next = row[i + 1];
    const tight = next !== undefined && TIGHT.test(text.slice(t.end, next.start));
    if (w === 'plus' || w.startsWith('+')) {
      split();
      run.plusAt = t.start;
      if (w !== 'plus') push(t.start, t.end, w.slice(1), false);
      continue;
    }
    if (t.unit === undefined && w in REPEAT) {
      if (next !== undefined && tight && next.unit !== undefined) {
        repeat = REPEAT[w]!;
        repeatAt = t.start;
      } else split();
      continue;
    }
    const c = w.charCodeAt(0);
    if (c >= 48 && c <= 57) {
      push(t.start, t.end, w, false);
      continue;
    }
    if (t.unit === undefined && HUNDRED.has(w)) {
      split();
      continue;
    }
    const compound = t.unit === undefined && w.length > 8 ? DE_COMPOUND.exec(w) : null;
    if (compound) {
      const unit = UNITS[compound[1] === 'ein' ? 'eins' : compound[1]!]!;
      push(t.start, t.end, compound[3] ? `${unit}00` : TENS[compound[2]!]! + unit, true, false, !compound[3]);
      continue;
    }
    const unit = t.unit;
    if (unit !== undefined) {
      if (next !== undefined && tight && HUNDRED.has(next.lower)) {
        // "nine hundred twelve", "four hundred twenty one": the tens join the hundreds
        const tail = row[i + 2] !== undefined && TIGHT.test(text.slice(next.end, row[i + 2]!.start)) ? twoDigits(text, row, i + 2) : null;
        if (tail) {
          push(t.start, tail.end, unit + tail.digits, true);
          i = tail.last;
        } else {
          push(t.start, next.end, `${unit}00`, true);
          i++;
        }
        continue;
      }
      // "Oh, …" is what people say before they start, not a digit
      const pause = next !== undefined && /[,….]/.test(text.slice(t.end, next.start));
      push(t.start, t.end, unit, true, w === 'oh' && pause);
      continue;
    }
    const pair = twoDigits(text, row, i);
    if (pair) {
      push(t.start, pair.end, pair.digits, true, false, true);
      i = pair.last;
    }
  }
  split();
  return runs;
}

// A teen, or a ten with the unit after it ("twenty one", "forty-two"), at row[i]: its two digits,
// where it ends and the index of its last token; null when row[i] is neither.
function twoDigits(text: string, row: Token[], i: number): { digits: string; end: number; last: number } | null {
  const t = row[i]!;
  const teen = TEENS[t.lower];
  if (teen !== undefined) return { digits: teen, end: t.end, last: i };
  const ten = TENS[t.lower];
  if (ten === undefined) return null;
  const next = row[i + 1];
  const after = next !== undefined && TIGHT.test(text.slice(t.end, next.start)) ? UNITS[next.lower] : undefined;
  if (after !== undefined && after !== '0') return { digits: ten + after, end: next!.end, last: i + 1 };
  return { digits: `${ten}0`, end: t.end, last: i };
}
