// Writes generated.tsv: personal data as a speech recogniser writes a phone call (#48), in English
// and German sentences: phone numbers, card numbers and IBANs said digit by digit, in pairs
// ("dreiundzwanzig"), with "oh"/"null", "double"/"doppel", hundreds, pauses and "and"/"und",
// written as spaced digits or as a mix of words and digits, and e-mail addresses said aloud.
// Deterministic (a seeded PRNG): `node test/corpus/spoken/generate.mjs` rewrites the same file.
// Check digits and the words are made here, independently of src/redact, which the corpus tests.

import { writeFileSync } from 'node:fs';

let seed = 20_261_148;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;
const digits = (n, first = '0123456789') => pick([...first]) + Array.from({ length: n - 1 }, () => Math.floor(rand() * 10)).join('');

// ---- check digits, computed the textbook way
function luhnDigit(body) {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}
function ibanCheck(cc, bban) {
  const numeric = (bban + cc + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return String(98n - (BigInt(numeric) % 97n)).padStart(2, '0');
}

// ---- numbers in words
const EN = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const DE = ['null', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun'];
const EN_TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const DE_TEENS = ['zehn', 'elf', 'zwölf', 'dreizehn', 'vierzehn', 'fünfzehn', 'sechzehn', 'siebzehn', 'achtzehn', 'neunzehn'];
const EN_TENS = [null, null, 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const DE_TENS = [null, null, 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'];

function digitWord(d, lang, oh) {
  if (lang === 'en') return d === '0' && oh ? 'oh' : EN[d];
  return d === '2' && chance(0.2) ? 'zwo' : DE[d];
}

// a group said digit by digit, repeats as "double"/"triple"/"doppel" some of the time
function sayDigits(group, lang, oh) {
  const words = [];
  for (let i = 0; i < group.length; ) {
    let n = 1;
    while (group[i + n] === group[i]) n++;
    const w = digitWord(group[i], lang, oh);
    if (n >= 2 && chance(0.5)) {
      const k = lang === 'en' && n >= 3 ? 3 : 2;
      words.push(lang === 'en' ? `${k === 3 ? 'triple' : 'double'} ${w}` : `doppel${pick(['-', ' '])}${w}`);
      i += k;
    } else {
      words.push(w);
      i += 1;
    }
  }
  return words.join(' ');
}

// a two-digit pair as one number ("dreiundzwanzig", "twenty three"); "05" as "oh five"/"null fünf"
function sayPair(p, lang) {
  if (p[0] === '0') return `${digitWord('0', lang, true)} ${digitWord(p[1], lang, true)}`;
  if (p[0] === '1') return (lang === 'en' ? EN_TEENS : DE_TEENS)[p[1]];
  if (lang === 'en') return p[1] === '0' ? EN_TENS[p[0]] : `${EN_TENS[p[0]]}${pick([' ', '-'])}${EN[p[1]]}`;
  return p[1] === '0' ? DE_TENS[p[0]] : `${p[1] === '1' ? 'ein' : DE[p[1]]}und${DE_TENS[p[0]]}`;
}
const sayPairs = (group, lang) => {
  const out = [];
  for (let i = 0; i < group.length; i += 2) out.push(group.length - i === 1 ? digitWord(group[i], lang, true) : sayPair(group.slice(i, i + 2), lang));
  return out.join(' ');
};

const SEPARATORS = {
  en: [', ', ' ', ', ', ' … ', '... ', ' - ', ', and '],
  de: [', ', ' ', ', ', ' … ', '... ', ' - ', ' und '],
};

/** The groups of a number said in one of the styles: words, pairs, spaced digits, or a mix. */
function say(groups, lang, style, oh = chance(0.5)) {
  const sep = pick(SEPARATORS[lang]);
  const parts = groups.map((g, i) => {
    if (style === 'spaced') return [...g].join(' ');
    if (style === 'pairs') return /^0+$/.test(g) || g.length === 1 ? sayDigits(g, lang, oh) : sayPairs(g, lang);
    if (style === 'mixed' && i % 2 === 1) return g;
    if (style === 'hundreds' && /^[1-9]00$/.test(g)) {
      if (lang === 'en') return `${EN[g[0]]} hundred`;
      return chance(0.5) ? `${g[0] === '1' ? 'ein' : DE[g[0]]}hundert` : `${DE[g[0]]} hundert`;
    }
    return sayDigits(g, lang, oh);
  });
  return parts.join(style === 'spaced' ? pick([' ', ', ', ' ']) : sep);
}

// ---- phone numbers
const DE_AREA = ['30', '40', '89', '221', '69', '711', '351', '6221'];
const DE_MOBILE = ['151', '160', '171', '176', '179', '1520'];
const sub = (n) => digits(n, '123456789');
function phone(lang) {
  const plusWord = lang === 'en' ? 'plus' : 'plus';
  const forms = [
    // North American, 3-3-4, optionally after "1"
    () => {
      const g = [digits(3, '23456789'), digits(3, '23456789'), digits(4)];
      const style = pick(['words', 'words', 'spaced', 'mixed']);
      const lead = chance(0.3) ? (style === 'spaced' ? '1 ' : `${digitWord('1', lang)} `) : '';
      return lead + say(g, lang, style);
    },
    // toll free with hundreds: "one eight hundred five five five …"
    () => `${digitWord('1', lang)} ${say(['800', digits(3, '23456789'), digits(4)], lang, 'hundreds')}`,
    // national with trunk 0
    () => say([`0${pick(DE_AREA)}`, sub(7)], lang, pick(['words', 'words', 'spaced', 'mixed', 'pairs'])),
    () => say([`0${pick(DE_MOBILE)}`, sub(3), digits(2), digits(2)], lang, pick(['words', 'spaced', 'pairs'])),
    // UK mobile with a hundred: 07700 900123
    () => say(['07700', '900', digits(3)], lang, 'hundreds', true),
    // international: "plus four nine …", "+49 …", "double oh four nine …"
    () => `${plusWord} ${say(['49', pick(DE_AREA), sub(7)], lang, pick(['words', 'pairs', 'words']))}`,
    () => `+49 ${say([pick(DE_MOBILE), sub(7)], lang, 'words')}`,
    () => `${lang === 'en' ? 'double oh' : pick(['doppel-null', 'doppel null'])} ${say(['44', '20', digits(4, '2345678'), digits(4)], lang, 'words')}`,
    () => `${plusWord} ${say(['41', '44', sub(3), digits(2), digits(2)], lang, pick(['words', 'pairs']))}`,
  ];
  return pick(forms)();
}

// ---- card numbers: Visa, Mastercard 16 in fours, Amex 15 in 4-6-5
function card(lang) {
  const amex = chance(0.15);
  const prefix = amex ? pick(['34', '37']) : pick(['4', '51', '53', '55']);
  const body = prefix + digits((amex ? 14 : 15) - prefix.length);
  const n = body + luhnDigit(body);
  const groups = amex ? [n.slice(0, 4), n.slice(4, 10), n.slice(10)] : n.match(/.{4}/g);
  return say(groups, lang, pick(amex ? ['words', 'spaced'] : ['words', 'words', 'spaced', 'mixed', ...(lang === 'de' ? ['pairs'] : [])]));
}

// ---- IBANs with numeric accounts, the country spelled
function iban(lang) {
  const cc = pick(['DE', 'DE', 'AT', 'CH']);
  const bban = digits(cc === 'DE' ? 18 : cc === 'AT' ? 16 : 17);
  const all = `${ibanCheck(cc, bban)}${bban}`;
  const letters = chance(0.7) ? `${cc[0]} ${cc[1]}` : `${cc[0].toLowerCase()} ${cc[1].toLowerCase()}`;
  return `${letters} ${say(all.match(/.{1,4}/g), lang, pick(['words', 'words', 'spaced']))}`;
}

// ---- e-mail addresses said aloud
const FIRST = ['max', 'anna', 'lena', 'jonas', 'sophie', 'lukas', 'emily', 'james', 'olivia', 'noah', 'mia', 'felix', 'sarah', 'tom', 'julia'];
const LAST = ['mustermann', 'schmidt', 'mueller', 'weber', 'fischer', 'smith', 'johnson', 'brown', 'taylor', 'wagner', 'becker', 'walker'];
const DOMAINS = [['gmail', 'com'], ['web', 'de'], ['gmx', 'de'], ['outlook', 'com'], ['yahoo', 'co', 'uk'], ['firma-beispiel', 'de'], ['example', 'org'], ['mail', 'example', 'com'], ['posteo', 'de'], ['t-online', 'de'], ['icloud', 'com']];
function email(lang) {
  const f = pick(FIRST);
  const l = pick(LAST);
  const en = lang === 'en';
  const dot = en ? 'dot' : pick(['punkt', 'Punkt']);
  const join = pick(en ? ['dot', 'underscore', 'dash'] : [dot, 'unterstrich', 'bindestrich', 'minus']);
  const spelled = (w) => [...w].join(' ');
  const local = pick([`${f} ${join} ${l}`, `${f} ${join} ${l}`, `${spelled(f)} ${dot} ${l}`, `${f}${l} ${join} ${Math.floor(rand() * 90 + 10)}`, `${f}.${l}`]);
  const at = pick(en ? ['at', 'at', 'at sign'] : ['ät', 'at', 'Klammeraffe']);
  const domain = pick(DOMAINS)
    .map((label) => label.replace('-', ` ${en ? 'dash' : pick(['bindestrich', 'minus'])} `))
    .join(` ${dot} `);
  return `${local} ${at} ${domain}`;
}
// a plain name and "at" is an address only after a word such as "e-mail": its own templates
function plainEmail(lang) {
  const dot = lang === 'en' ? 'dot' : 'punkt';
  const [d, tld] = pick(DOMAINS.filter((x) => x.length === 2 && !x[0].includes('-')));
  return `${pick(FIRST)} at ${d} ${dot} ${tld}`;
}

const TEMPLATES = {
  en: {
    phone: ['my number is {x}', 'yeah you can reach me on {x}, thanks', "it's {x}", 'call me back at {x} whenever', '{x} is my cell', 'the best number is {x} okay', 'so that is {x}, did you get that?', 'uh my phone number, {x}'],
    card: ['the card number is {x}', 'okay my card is {x} and it expires in March', "it's {x}, a Visa", 'card number {x} please charge it', 'sure, {x}'],
    iban: ['my IBAN is {x}', 'the account is {x}, at Sparkasse', 'IBAN {x} please'],
    email: ['my email is {x}', 'you can write to {x}', "it's {x}, all lower case", 'email address {x} thanks', 'send it to {x} please', '{x} is my address'],
    plain: ['my email is {x}', 'the e-mail address is {x}, thanks', 'send the mail to {x} please'],
  },
  de: {
    phone: ['meine Nummer ist {x}', 'Sie erreichen mich unter {x}, danke', 'das ist {x}', 'rufen Sie mich bitte unter {x} zurück', '{x} ist meine Handynummer', 'also {x}, haben Sie das?', 'äh die Telefonnummer, {x}'],
    card: ['die Kartennummer ist {x}', 'meine Karte ist {x} und läuft im März ab', 'das ist {x}, eine Visa', 'Kartennummer {x} bitte', 'ja, {x}'],
    iban: ['meine IBAN ist {x}', 'das Konto ist {x}, bei der Sparkasse', 'IBAN {x} bitte'],
    email: ['meine E-Mail ist {x}', 'schreiben Sie an {x}', 'das ist {x}, alles klein', 'E-Mail-Adresse {x} danke', 'schicken Sie es an {x} bitte', '{x} ist meine Adresse'],
    plain: ['meine E-Mail ist {x}', 'die Mailadresse ist {x}, danke', 'schreiben Sie mir an {x} bitte'],
  },
};

const MAKE = { phone, card, iban, email };
const COUNTS = { phone: 160, card: 90, iban: 50, email: 110 };
const out = ['# Generated by generate.mjs (seeded): spoken personal data in sentences. Edit the script, not this file.'];
for (const lang of ['en', 'de']) {
  for (const kind of Object.keys(MAKE)) {
    for (let i = 0; i < COUNTS[kind]; i++) out.push(`${lang}\t${pick(TEMPLATES[lang][kind]).replace('{x}', `{${kind}:${MAKE[kind](lang)}}`)}`);
  }
  for (let i = 0; i < 20; i++) out.push(`${lang}\t${pick(TEMPLATES[lang].plain).replace('{x}', `{email:${plainEmail(lang)}}`)}`);
}
writeFileSync(new URL('generated.tsv', import.meta.url), `${out.join('\n')}\n`);
console.log(`wrote ${out.length - 1} lines`);
