// The words of a conversation: its facts (customer name, order and invoice numbers, a weekday;
// shared by summary and transcript so they agree), the summary text, and each transcript line,
// with the odd caller line that starts with a formula character, carries an emoji or breaks
// across lines. Each draws from its own PRNG stream, so the skeleton stays the same.

import { callerOf, drawPersonalFacts, type PersonalFacts, type PlantedCaller, type SaidData } from './personal-data.js';
import * as P from './phrases.js';
import { Rng, hashSeed } from '../random.js';
import type { Ev, Skeleton } from './skeleton.js';

export interface Facts {
  name: string;
  order: string;
  invoice: string;
  day: string;
  company: string;
  /** the caller's personal data (personal-data.ts): as said here, and as systems store it */
  readonly phone: string;
  readonly phoneE164: string;
  readonly email: string;
  readonly card: string;
  readonly iban: string;
  /** a 16-digit order reference that fails Luhn: looks like a card, is none */
  readonly orderRef: string;
  /** all of the above, drawn on first use (a summary rarely needs them: generating stays fast) */
  personal(): PersonalFacts;
}

export function drawFacts(seed: number, idx: number, company: string, planted?: PlantedCaller, voice = false): Facts {
  const rng = new Rng(hashSeed(seed, idx, 0xfac7));
  const drawnName = rng.pick(P.CUSTOMER_NAMES);
  const order = `A-${rng.int(10000, 99999)}`;
  const invoice = `INV-${rng.int(2023, 2025)}-${String(rng.int(1, 9999)).padStart(4, '0')}`;
  const day = rng.pick(P.WEEKDAYS);
  const who = callerOf(seed, idx, drawnName, rng, planted);
  let drawn: PersonalFacts | undefined;
  const personal = (): PersonalFacts => (drawn ??= drawPersonalFacts(seed, idx, who, planted));
  // a number written only as said (a planted caller's) is so in the summary and tool payloads too
  const phoneWritten = (typed: string): string => (voice && personal().saidOnly ? personal().said!.en.phone : typed);
  return {
    name: who.name,
    order,
    invoice,
    day,
    company,
    get phone() { return phoneWritten(personal().phoneSpoken); },
    get phoneE164() { return phoneWritten(personal().caller.phoneE164); },
    get email() { return personal().caller.email; },
    get card() { return personal().caller.card; },
    get iban() { return personal().caller.iban; },
    get orderRef() { return personal().orderRef; },
    personal,
  };
}

/** The `{name}`, `{order}`… placeholders of a phrase filled in; `said`: the caller's data as spoken on a call. */
function fill(template: string, f: Facts, said: SaidData | null = null): string {
  return template.replace(/\{(\w+)\}/g, (_m, key: string) => {
    if (said !== null && (key === 'phone' || key === 'email' || key === 'card')) return said[key];
    const v = (f as unknown as Record<string, string>)[key];
    return v ?? '';
  });
}

/** The summary of a finished conversation: what the caller wanted, in path order, and how it ended. */
export function summaryText(seed: number, idx: number, sk: Skeleton, f: Facts): string {
  const rng = new Rng(hashSeed(seed, idx, 0x5a11));
  const seen: string[] = [];
  for (const key of sk.path) {
    let p: string | null;
    switch (key) {
      case 'lookup_order': p = `asked about the status of order ${f.order}`; break;
      case 'track_shipment': p = 'asked where the parcel is'; break;
      case 'start_return': p = `wanted to return items from order ${f.order}`; break;
      case 'faq': p = 'had a general question'; break;
      case 'book_appointment': p = `booked a showroom appointment for ${f.day}`; break;
      case 'reschedule_appointment': p = `moved an appointment to ${f.day}`; break;
      case 'check_invoice': p = `asked about invoice ${f.invoice}`; break;
      case 'update_payment': p = `requested a payment link to ${f.email}`; break;
      case 'take_message': p = `left a message for the team, callback on ${f.phone}`; break;
      default: p = null;
    }
    if (p !== null && !seen.includes(p)) seen.push(p);
  }
  const chat = sk.channel === 'chat';
  const who = chat ? 'Visitor' : 'Caller';
  const named = rng.chance(0.4) ? `${who} ${f.name}` : who;
  const what = seen.length > 0 ? seen.join(', then ') : 'did not say what they needed';
  let end: string;
  switch (sk.outcome) {
    case 'completed': end = 'Resolved by the agent.'; break;
    case 'transferred': end = 'Handed over to a human colleague.'; break;
    case 'hung_up': end = chat ? 'The visitor left the chat before the end.' : 'The caller hung up before the end.'; break;
    case 'failed': end = 'A tool call failed, so the request could not be completed.'; break;
    case 'voicemail': end = 'Nobody answered; the agent left a voicemail.'; break;
    default: end = '';
  }
  let text = `${named} ${what}. ${end}`;
  if (rng.chance(0.05)) text += `\nNote: ${who.toLowerCase()} said "${rng.pick(['this is the third time', 'ça ne marche pas', 'das ist ärgerlich'])}".`;
  return text;
}

/**
 * What the agent has said so far in one conversation: the agent avoids saying a line twice (it
 * picks one not said yet while its pool has one), except where a repetition is planted.
 */
export interface AgentMemory {
  said: Set<string>;
  last: { purpose: string; node: string; text: string } | null;
}

export function agentMemory(): AgentMemory {
  return { said: new Set(), last: null };
}

/** The text of the message event `e`; `de`: the agent speaks German. */
export function transcriptLine(e: Ev, sk: Skeleton, f: Facts, de: boolean, rng: Rng, memory: AgentMemory): string {
  const p = e.purpose ?? '';
  const fresh = (pool: readonly string[]): string => {
    const lines = pool.map((t) => fill(t, f));
    const unsaid = lines.filter((l) => !memory.said.has(l));
    return rng.pick(unsaid.length > 0 ? unsaid : lines);
  };
  let text: string;
  if (p === 'greet') text = sk.agent.detail.first_message.text;
  else if (p === 'voicemail') text = fill(rng.pick(P.VOICEMAIL_LINES), f);
  else if (p === 'greet_reply') text = rng.pick(['Hi!', 'Hello, yes, hi.', 'Grüezi', 'Hey 👋', 'Good morning.']);
  else if (p === 'anything_else') text = fresh(de ? P.ANYTHING_ELSE_DE : P.ANYTHING_ELSE);
  else if (p === 'ask') {
    // Order Support asks the same question again, word for word, when the caller's answer did
    // not say what they need: the repetition the loops report looks for.
    const again = sk.agent.tpl.key === 'order_support' && memory.last?.purpose === 'ask' && memory.last.node === e.node;
    text = again && rng.chance(0.7) ? memory.last!.text : fresh(de ? P.AGENT_ASK_DE : P.AGENT_ASK);
  } else if (p.startsWith('intent:')) text = fill(rng.pick(P.INTENT_LINES[p.slice(7)] ?? P.CALLER_FILLERS), f);
  else if (p.startsWith('provide:')) {
    // on a call, the transcript writes what the caller says as the recogniser heard it
    const template = rng.pick(P.PROVIDE_LINES[p.slice(8)] ?? P.CALLER_FILLERS);
    const spoken = sk.channel === 'voice' && /\{(?:phone|email|card)\}/.test(template) ? f.personal().said : null;
    text = fill(template, f, spoken ? spoken[de ? 'de' : 'en'] : null);
  }
  else if (p === 'faq_q') text = rng.pick(P.FAQ_QUESTIONS);
  else if (p === 'faq_a') text = fresh(P.FAQ_ANSWERS);
  else if (p === 'announce') {
    const rt = sk.agent.wf.tools.get(e.node)?.[0];
    const announce = rt?.tool.recipe.announce_text || 'One moment please.';
    text = memory.said.has(announce) ? fresh(P.HOLD_LINES) : announce;
  } else if (p.startsWith('ok:')) text = fresh(P.TOOL_OK_LINES[p.slice(3)] ?? P.AGENT_ACK);
  else if (p === 'fail') text = fresh(P.TOOL_FAIL_LINES);
  else if (p === 'ack') text = fresh(P.AGENT_ACK);
  else if (p === 'transfer') text = fresh(P.TRANSFER_LINES);
  else if (p === 'bye') text = fresh(de ? P.BYE_LINES_DE : P.BYE_LINES);
  else if (p === 'caller_bye') text = rng.pick(P.INTENT_LINES.end ?? ['Bye.']);
  else if (p === 'hangup_last') text = rng.pick(P.HANGUP_LAST_LINES);
  else text = fill(rng.pick(P.CALLER_FILLERS), f);
  if (e.speaker === 'agent') {
    memory.said.add(text);
    memory.last = { purpose: p, node: e.node, text };
  }
  if (e.speaker === 'caller') {
    const r = rng.next();
    if (r < 0.03) text = rng.pick(P.FORMULA_LINES);
    else if (r < 0.07) text += rng.pick(P.EMOJI);
    else if (r < 0.1) text += rng.pick(['\nAlso, the app crashed.', '\r\nP.S. thanks, really', '\n\n– sent from my phone']);
    else if (r < 0.12) text = `It said "${text.replace(/[.?!]$/, '')}", and then, well, nothing.`;
  }
  return text;
}
