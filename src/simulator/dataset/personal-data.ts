// The caller's personal data a conversation carries: a phone number (written in the national and
// the international forms people and speech-to-text use), an e-mail address, a payment card number
// that passes Luhn and an IBAN that passes mod-97, plus an order reference that only looks like a
// card (it fails Luhn) and must never be taken for one. A share of the conversations come from a
// small pool of repeat callers, so that erasing "everything about this caller" spans several of
// them. Drawn from streams of their own: the skeleton and the other words stay as they were.

import { ibanCheckDigits, luhnCheckDigit } from './check-digits.js';
import { CUSTOMER_NAMES } from './phrases.js';
import { sayEmail, sayNumber } from './spoken-forms.js';
import { Rng, hashSeed } from '../random.js';

export interface Caller {
  name: string;
  /** as said or typed at home: `030 1234567`, `0151 23456789` */
  phoneNational: string;
  /** with the country code: `+49 30 1234567` */
  phoneInternational: string;
  /** how a CRM stores it (E.164): `+49301234567` */
  phoneE164: string;
  email: string;
  /** 16 digits in groups of four, Luhn-valid */
  card: string;
  /** in groups of four, mod-97-valid */
  iban: string;
}

/** The caller of one conversation and the forms its data take there. */
export interface PersonalFacts {
  caller: Caller;
  /** the phone number as the caller says it in this conversation */
  phoneSpoken: string;
  /** a 16-digit order reference that fails Luhn: a look-alike, not personal data */
  orderRef: string;
  /** on a voice call, whether the transcript writes the caller's data as said (in words), in English and German */
  said: { en: SaidData; de: SaidData } | null;
  /** on a voice call, the number is written nowhere but as said (a planted caller's `saidOnly`) */
  saidOnly: boolean;
}

/** The caller's data as a speech recogniser writes it (spoken-forms.ts). */
export interface SaidData {
  phone: string;
  email: string;
  card: string;
}

/** This share of callers has their data written as said on a voice call; the others as typed. */
const SAID_SHARE = 0.5;

/** Repeat callers: this share of the conversations is made by one of REPEAT_POOL callers (k from REPEAT_BASE). */
const REPEAT_SHARE = 0.3;
const REPEAT_POOL = 25;

const COUNTRIES = [
  { code: '49', iban: 'DE', areas: ['30', '89', '40', '151', '176', '160'] },
  { code: '41', iban: 'CH', areas: ['44', '31', '79', '76'] },
  { code: '43', iban: 'AT', areas: ['1', '664', '316'] },
] as const;

const MAIL_DOMAINS = ['gmail.com', 'web.de', 'gmx.ch', 'outlook.com', 'posteo.de', 'bluewin.ch'] as const;

/**
 * A caller a test knows the number of (`+1 415 555 0198`), who makes this share of the
 * conversations (drawn from a stream of its own: the others stay as they were).
 */
export interface PlantedCaller {
  /** `+1 415 555 0198` */
  phoneInternational: string;
  /** `(415) 555-0198` */
  phoneNational: string;
  share: number;
  /**
   * on a call, the number is written only as said, in English (transcript, summary and tool
   * payloads alike): as when the line withholds it and the caller reads it out
   */
  saidOnly?: boolean;
}
const PLANTED_K = 2_000_000_000;

/** Who calls in conversation `idx`: caller `k` of the seed, and the name that caller goes by. */
export interface CallerRef {
  k: number;
  name: string;
}

/**
 * The caller of conversation `idx`, drawn from `rng` (the conversation's facts stream, after its
 * other draws): most are one-time callers named `drawnName`, the rest one of the repeat callers.
 */
export function callerOf(seed: number, idx: number, drawnName: string, rng: Rng, planted?: PlantedCaller): CallerRef {
  if (planted && new Rng(hashSeed(seed, idx, 0x91a7)).chance(planted.share)) return { k: PLANTED_K, name: 'Jordan Miles' };
  if (!rng.chance(REPEAT_SHARE)) return { k: idx, name: drawnName };
  const k = REPEAT_BASE + rng.int(0, REPEAT_POOL - 1);
  return { k, name: repeatCaller(seed, k).name };
}

/** The caller's data and the forms this conversation uses; computed only when its words are. */
export function drawPersonalFacts(seed: number, idx: number, who: CallerRef, planted?: PlantedCaller): PersonalFacts {
  const caller =
    who.k === PLANTED_K && planted
      ? plantedCaller(seed, who.name, planted)
      : who.k >= REPEAT_BASE
        ? repeatCaller(seed, who.k)
        : drawCaller(seed, who.k, who.name);
  const rng = new Rng(hashSeed(seed, idx, 0x9e75));
  const c = caller;
  const phoneSpoken = rng.pick([c.phoneNational, c.phoneInternational, c.phoneNational.replace(' ', '/'), c.phoneInternational.replace(/^\+(\d+) /, '+$1 (0)')]);
  let orderRef = digits(rng, 16);
  while (luhnCheckDigit(orderRef.slice(0, -1)) === Number(orderRef.slice(-1))) orderRef = digits(rng, 16);
  // a stream of its own, so that the draws above stay as they were
  const words = new Rng(hashSeed(seed, idx, 0x5a1d));
  const saidOnly = who.k === PLANTED_K && planted?.saidOnly === true;
  const said = words.chance(SAID_SHARE) || saidOnly
    ? {
        en: { phone: sayNumber(phoneSpoken, false, words), email: sayEmail(c.email, false), card: sayNumber(c.card, false, words) },
        de: { phone: sayNumber(phoneSpoken, true, words), email: sayEmail(c.email, true), card: sayNumber(c.card, true, words) },
      }
    : null;
  // the planted caller speaks English whatever the agent speaks
  if (said && saidOnly) said.de = said.en;
  return { caller, phoneSpoken, orderRef: groups(orderRef), said, saidOnly };
}

const REPEAT_BASE = 1_000_000_000;
const repeatCallers = new Map<string, Caller>();

function repeatCaller(seed: number, k: number): Caller {
  const key = `${seed}:${k}`;
  let caller = repeatCallers.get(key);
  if (!caller) {
    if (repeatCallers.size > 10_000) repeatCallers.clear();
    caller = drawCaller(seed, k, null);
    repeatCallers.set(key, caller);
  }
  return caller;
}

/** Caller `k` of the seed (named `name`, or a drawn name): the same person whichever conversation draws it. */
export function drawCaller(seed: number, k: number, name: string | null): Caller {
  const rng = new Rng(hashSeed(seed, k, 0xca11));
  const drawn = rng.pick(CUSTOMER_NAMES);
  const fullName = name ?? drawn;
  const country = rng.pick(COUNTRIES);
  const area = rng.pick(country.areas);
  const subscriber = String(rng.int(2, 9)) + digits(rng, area.length === 2 ? 6 : 7);
  const local = ascii(fullName).split(/\s+/).filter(Boolean);
  const user = `${local[0] ?? 'kunde'}.${local.at(-1) ?? 'x'}${rng.int(1, 99)}`.toLowerCase();
  return {
    name: fullName,
    phoneNational: `0${area} ${subscriber}`,
    phoneInternational: `+${country.code} ${area} ${subscriber}`,
    phoneE164: `+${country.code}${area}${subscriber}`,
    email: `${user}@${rng.pick(MAIL_DOMAINS)}`,
    card: groups(cardNumber(rng)),
    iban: groups(ibanOf(country.iban, rng)),
  };
}

function plantedCaller(seed: number, name: string, p: PlantedCaller): Caller {
  const drawn = drawCaller(seed, PLANTED_K, name);
  return { ...drawn, phoneInternational: p.phoneInternational, phoneNational: p.phoneNational, phoneE164: `+${p.phoneInternational.replace(/\D/g, '')}` };
}

function digits(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(rng.int(0, 9));
  return s;
}

function groups(s: string): string {
  return s.replace(/(.{4})(?=.)/g, '$1 ');
}

/** A Visa or Mastercard number: 15 drawn digits and the Luhn check digit. */
function cardNumber(rng: Rng): string {
  const body = rng.pick(['4', '51', '53', '55']) + digits(rng, 14);
  const head = body.slice(0, 15);
  return head + luhnCheckDigit(head);
}

/** An IBAN of the country with a drawn account: DE 18, CH 17, AT 16 digits after the check digits. */
function ibanOf(country: string, rng: Rng): string {
  const bban = digits(rng, country === 'DE' ? 18 : country === 'CH' ? 17 : 16);
  return `${country}${ibanCheckDigits(country, bban)}${bban}`;
}

/** Latin letters without accents, for an e-mail's local part (names in other scripts give none). */
function ascii(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ø/gi, 'o')
    .replace(/ł/gi, 'l')
    .replace(/ß/g, 'ss')
    .replace(/[^A-Za-z\s]/g, '');
}

/** What the simulator knows about one conversation's personal data: truth for tests. */
export interface PersonalDataTruth {
  caller: Caller;
  /** each datum of the caller the conversation's detail holds, in the forms it holds it */
  found: { kind: 'name' | 'phone' | 'email' | 'card' | 'iban'; value: string }[];
  /** the look-alike order reference, when the detail holds it (not personal data) */
  lookalike: string | null;
}

/** Which of the caller's data `detail` (as served, all fields) holds. */
export function personalDataIn(detail: unknown, p: PersonalFacts): PersonalDataTruth {
  const text = JSON.stringify(detail);
  const c = p.caller;
  const candidates: PersonalDataTruth['found'] = [
    { kind: 'name', value: c.name },
    ...[...new Set([p.phoneSpoken, c.phoneNational, c.phoneInternational, c.phoneE164])].map((value) => ({ kind: 'phone' as const, value })),
    { kind: 'email', value: c.email },
    { kind: 'card', value: c.card },
    ...(p.said ? [p.said.en, p.said.de] : []).flatMap((s) => [
      { kind: 'phone' as const, value: s.phone },
      { kind: 'email' as const, value: s.email },
      { kind: 'card' as const, value: s.card },
    ]),
    { kind: 'iban', value: c.iban },
  ];
  return {
    caller: c,
    found: candidates.filter((d) => text.includes(JSON.stringify(d.value).slice(1, -1))),
    lookalike: text.includes(p.orderRef) ? p.orderRef : null,
  };
}
