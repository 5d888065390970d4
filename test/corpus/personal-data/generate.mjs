// Writes generated.tsv: the formats of #27 in many spellings, inside English and German sentences
// in chat and speech-to-text style, with the look-alikes that must not be touched beside them.
// Deterministic (a seeded PRNG): `node test/corpus/personal-data/generate.mjs` rewrites the same
// file. Check digits are computed here independently of src/redact, which the corpus tests.
// The tricky cases are hand-written in hand-*.tsv and lookalikes.tsv.

import { writeFileSync } from 'node:fs';

let seed = 20_270_327;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const digits = (n, first = '0123456789') => pick([...first]) + Array.from({ length: n - 1 }, () => Math.floor(rand() * 10)).join('');
const upperLetters = (n) => Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(rand() * 26))).join('');

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
  let rem = 0n;
  rem = BigInt(numeric) % 97n;
  return String(98n - rem).padStart(2, '0');
}
const group4 = (s) => s.match(/.{1,4}/g).join(' ');

// ---- e-mail addresses
const FIRST = ['max', 'anna', 'lena', 'jonas', 'sophie', 'lukas', 'emily', 'james', 'olivia', 'noah', 'mia', 'felix', 'sarah', 'tom', 'julia', 'david', 'laura', 'paul', 'hannah', 'ben'];
const LAST = ['mustermann', 'schmidt', 'mueller', 'weber', 'fischer', 'smith', 'johnson', 'brown', 'taylor', 'wagner', 'becker', 'hoffmann', 'schulz', 'walker', 'clarke', 'koch', 'richter', 'wolf', 'neumann', 'evans'];
const DOMAINS = ['gmail.com', 'web.de', 'gmx.de', 't-online.de', 'outlook.com', 'yahoo.co.uk', 'firma-beispiel.de', 'example.org', 'mail.example.com', 'posteo.de', 'icloud.com', 'hotmail.de', 'uni-hamburg.de', 'acme-corp.io', 'kanzlei-weber.berlin'];
function email() {
  const f = pick(FIRST);
  const l = pick(LAST);
  const local = pick([`${f}.${l}`, `${f}${l}`, `${f[0]}.${l}`, `${f}_${l}`, `${f}-${l}`, `${f}.${l}${Math.floor(rand() * 99)}`, `${f}+shop`, `${l}.${f}`, `${f.toUpperCase()}.${l}`, `info`, `${f}${1970 + Math.floor(rand() * 40)}`]);
  return `${local}@${pick(DOMAINS)}`;
}

// ---- phone numbers, each form of the issue
const DE_AREA = ['30', '40', '89', '221', '69', '711', '211', '351', '341', '511', '228', '6221', '7531', '3641'];
const DE_MOBILE = ['151', '152', '160', '162', '170', '171', '172', '175', '176', '177', '179', '1520', '1575'];
const sub = (n) => digits(n, '123456789');
function phone() {
  const a = pick(DE_AREA);
  const m = pick(DE_MOBILE);
  const na = `${digits(1, '23456789')}${digits(2)}`;
  const ne = `${digits(1, '23456789')}${digits(2)}`;
  const nl = digits(4);
  return pick([
    () => `+49 ${a} ${sub(7)}`,
    () => `+49 (0)${a} ${sub(7)}`,
    () => `+49-${a}-${sub(7)}`,
    () => `+49${a}${sub(7)}`,
    () => `0049 ${a} ${sub(7)}`,
    () => `+49 ${m} ${sub(7)}`,
    () => `+49 ${m} ${sub(8)}`,
    () => `0${a} ${sub(7)}`,
    () => `0${a}/${sub(7)}`,
    () => `0${a}-${sub(6)}`,
    () => `(0${a}) ${sub(3)} ${digits(2)} ${digits(2)}`,
    () => `0${m} ${sub(8)}`,
    () => `0${m}/${sub(7)}`,
    () => `0${m} ${sub(3)} ${digits(2)} ${digits(2)}`,
    () => `0${m}${sub(7)}`,
    () => `+1 (${na}) ${ne}-${nl}`,
    () => `+1 ${na} ${ne} ${nl}`,
    () => `+1-${na}-${ne}-${nl}`,
    () => `+1.${na}.${ne}.${nl}`,
    () => `(${na}) ${ne}-${nl}`,
    () => `${na}-${ne}-${nl}`,
    () => `${na}.${ne}.${nl}`,
    () => `${na} ${ne} ${nl}`,
    () => `1-800-${ne}-${nl}`,
    () => `+44 20 7946 ${digits(4)}`,
    () => `+44 7700 900${digits(3)}`,
    () => `020 7946 ${digits(4)}`,
    () => `07700 900${digits(3)}`,
    () => `+44 (0)161 496 ${digits(4)}`,
    () => `+33 6 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
    () => `06 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
    () => `+43 664 ${sub(7)}`,
    () => `+41 44 ${digits(3)} ${digits(2)} ${digits(2)}`,
  ])();
}

// ---- card numbers: issuer prefix, length, Luhn digit; printed solid, in 4s, with dashes
const ISSUERS = [
  ['4', 16], ['4', 16], ['4', 13], ['51', 16], ['53', 16], ['55', 16], ['2221', 16], ['2720', 16],
  ['34', 15], ['37', 15], ['6011', 16], ['65', 16], ['3530', 16], ['36', 14], ['62', 16], ['4', 19],
];
function cardDigits() {
  const [prefix, n] = pick(ISSUERS);
  const body = prefix + digits(n - prefix.length - 1);
  return body + luhnDigit(body);
}
function printCard(d) {
  if (d.length === 15) return pick([d, `${d.slice(0, 4)} ${d.slice(4, 10)} ${d.slice(10)}`, `${d.slice(0, 4)}-${d.slice(4, 10)}-${d.slice(10)}`]);
  return pick([d, group4(d), group4(d).replaceAll(' ', '-'), group4(d)]);
}
function badCard() {
  const d = cardDigits();
  const wrong = String((Number(d.at(-1)) + 1 + Math.floor(rand() * 8)) % 10);
  return d.slice(0, -1) + wrong;
}

// ---- IBANs: national account formats, check digits computed
const BBAN = {
  DE: () => digits(18), AT: () => digits(16), CH: () => digits(17), FR: () => digits(23), ES: () => digits(20),
  IT: () => upperLetters(1) + digits(22), NL: () => upperLetters(4) + digits(10), GB: () => upperLetters(4) + digits(14),
  BE: () => digits(12), PL: () => digits(24), NO: () => digits(11), LU: () => digits(16), IE: () => upperLetters(4) + digits(14),
};
function ibanCompact() {
  const cc = pick(Object.keys(BBAN));
  const bban = BBAN[cc]();
  return cc + ibanCheck(cc, bban) + bban;
}
const printIban = (c) => pick([group4(c), group4(c), c, group4(c).toLowerCase()]);
function badIban() {
  const c = ibanCompact();
  const check = c.slice(2, 4) === '99' ? '02' : String(Number(c.slice(2, 4)) + 1).padStart(2, '0');
  return c.slice(0, 2) + check + c.slice(4);
}

// ---- look-alikes
const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
const pad = (n, w) => String(n).padStart(w, '0');
const LOOKALIKES = [
  () => ['uuid', `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`],
  () => ['timestamp', `2024-${pad(1 + Math.floor(rand() * 12), 2)}-${pad(1 + Math.floor(rand() * 28), 2)}T${pad(Math.floor(rand() * 24), 2)}:${pad(Math.floor(rand() * 60), 2)}:${pad(Math.floor(rand() * 60), 2)}Z`],
  () => ['date', `2024-${pad(1 + Math.floor(rand() * 12), 2)}-${pad(1 + Math.floor(rand() * 28), 2)}`],
  () => ['date', `${pad(1 + Math.floor(rand() * 28), 2)}.${pad(1 + Math.floor(rand() * 12), 2)}.${2020 + Math.floor(rand() * 6)}`],
  () => ['date', `${pad(1 + Math.floor(rand() * 12), 2)}/${pad(1 + Math.floor(rand() * 28), 2)}/${2020 + Math.floor(rand() * 6)}`],
  () => ['time', `${pad(Math.floor(rand() * 24), 2)}:${pad(Math.floor(rand() * 60), 2)}`],
  () => ['order', `ORD-${2020 + Math.floor(rand() * 6)}-${digits(6)}`],
  () => ['order', `#${digits(6, '123456789')}`],
  () => ['amount', `€${1 + Math.floor(rand() * 9)},${digits(3)}.${digits(2)}`],
  () => ['amount', `${1 + Math.floor(rand() * 9)}.${digits(3)},${digits(2)} EUR`],
  () => ['amount', `$${digits(3, '123456789')}.${digits(2)}`],
  () => ['version', `${Math.floor(rand() * 20)}.${Math.floor(rand() * 30)}.${Math.floor(rand() * 100)}`],
  () => ['ip', `${10 + Math.floor(rand() * 200)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`],
  () => ['postcode', `${digits(5, '123456789')} ${pick(['Berlin', 'München', 'Hamburg', 'Köln', 'Leipzig'])}`],
  () => ['luhn-fail', badCard()],
  () => ['luhn-fail', group4(badCard())],
  () => ['iban-fail', group4(badIban())],
  () => ['iban-fail', badIban()],
  () => ['tracking', `00340434${digits(12)}`],
  () => ['tracking', `1Z${upperLetters(3)}${digits(3)}${upperLetters(2)}${digits(8)}`],
  () => ['tracking', `JJD${digits(15)}`],
  () => ['id', `conv_${hex(24)}`],
  () => ['id', `sess-${hex(16)}`],
];

// ---- sentences
const EN = {
  email: ['my email is {}', 'you can reach me at {} thanks', 'send the invoice to {} please', 'its {}', 'the account is under {}', 'yeah so my e-mail is {} okay'],
  phone: ['my number is {}', 'call me back on {}', 'you can reach me at {} after six', 'my mobile is {} thanks', 'uh the phone number is {} yeah', 'text me on {} please', 'my husbands number is {}'],
  card: ['my card number is {}', 'the card is {} expiry twelve twenty seven', 'charge it to {} please', 'uh its {} on the visa', 'can you use the card ending uh {} the full number'],
  iban: ['my iban is {}', 'please refund to {}', 'the account is {} at my bank', 'send it to IBAN {} thanks'],
  look: ['your order {} was shipped', 'reference {} noted', 'the update {} is installed', 'we saw that at {}', 'the total came to {}', 'ticket id {}', 'we delivered it on {}', 'the value {} is on file', 'it arrived {}'],
};
const DE = {
  email: ['meine E-Mail ist {}', 'schreiben Sie mir an {} bitte', 'die Adresse lautet {}', 'äh das ist {} genau', 'die Rechnung bitte an {}'],
  phone: ['meine Nummer ist {}', 'rufen Sie mich unter {} zurück', 'ich bin unter {} erreichbar', 'meine Handynummer lautet {}', 'äh die Nummer ist {} genau', 'Festnetz {} ab 18 Uhr'],
  card: ['meine Kreditkartennummer ist {}', 'die Karte lautet {} gültig bis zwölf siebenundzwanzig', 'buchen Sie das bitte von {} ab', 'Kartennummer {}'],
  iban: ['meine IBAN ist {}', 'bitte überweisen Sie auf {}', 'die IBAN lautet {} bei der Sparkasse', 'Erstattung bitte auf {} danke'],
  look: ['Ihre Bestellung {} ist unterwegs', 'Referenz {} notiert', 'Version {} ist installiert', 'das war am {}', 'der Betrag ist {}', 'Vorgang {} ist offen', 'gespeichert als {}', 'Zustellung {}'],
};
const make = { email, phone, card: () => printCard(cardDigits()), iban: () => printIban(ibanCompact()) };

const lines = ['# generated by generate.mjs: do not edit by hand'];
const PER_KIND = 220;
for (const kind of ['email', 'phone', 'card', 'iban']) {
  for (let i = 0; i < PER_KIND; i++) {
    const lang = i % 2 === 0 ? 'en' : 'de';
    const t = lang === 'en' ? EN : DE;
    let text = pick(t[kind]).replace('{}', `{${kind}:${make[kind]()}}`);
    // half of the lines carry a look-alike too, before or after the datum
    if (rand() < 0.5) {
      const [category, value] = pick(LOOKALIKES)();
      const extra = pick(t.look).replace('{}', `{!${category}:${value}}`);
      text = rand() < 0.5 ? `${extra}, ${text}` : `${text}. ${extra}`;
    }
    if (rand() < 0.3) text = text[0].toUpperCase() + text.slice(1) + '.';
    lines.push(`${lang}\t${text}`);
  }
}
// look-alikes alone, several a line
for (let i = 0; i < 300; i++) {
  const lang = i % 2 === 0 ? 'en' : 'de';
  const t = lang === 'en' ? EN : DE;
  const parts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
    const [category, value] = pick(LOOKALIKES)();
    return pick(t.look).replace('{}', `{!${category}:${value}}`);
  });
  lines.push(`${lang}\t${parts.join(', ')}`);
}
writeFileSync(new URL('./generated.tsv', import.meta.url), `${lines.join('\n')}\n`);
