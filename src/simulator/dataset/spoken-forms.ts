// How a speech recogniser writes what a caller says on the phone: a number as digit words in
// groups ("oh three oh, one two three four five six seven", "null eins fünf eins, …"), "double"
// or "doppel" for a repeated digit, "plus" before a country code; an e-mail address with "at"/"ät"
// and "dot"/"Punkt". Pure, from the caller's data and an Rng of its own.

import type { Rng } from '../random.js';

const EN = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const DE = ['null', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun'];

/** A number as written (`+49 30 1234567`, `0151 23456789`, `4111 1111 1111 1111`) said digit by digit, group by group. */
export function sayNumber(written: string, de: boolean, rng: Rng): string {
  const oh = !de && rng.chance(0.5);
  const sep = rng.pick([', ', ', ', ' … ', ' ']);
  const plus = written.startsWith('+') ? 'plus ' : '';
  // "+49 (0)30 …": the trunk 0 in brackets is not said after the country code
  const groups = written.replace(/^\+/, '').replace('(0)', ' ').split(/[\s/()-]+/).filter(Boolean);
  return plus + groups.map((g) => sayGroup(g, de, oh, rng)).join(sep);
}

function sayGroup(group: string, de: boolean, oh: boolean, rng: Rng): string {
  const words: string[] = [];
  for (let i = 0; i < group.length; ) {
    const d = Number(group[i]);
    const word = de ? DE[d]! : d === 0 && oh ? 'oh' : EN[d]!;
    if (group[i + 1] === group[i] && rng.chance(0.4)) {
      words.push(de ? `doppel-${word}` : `double ${word}`);
      i += 2;
    } else {
      words.push(word);
      i += 1;
    }
  }
  return words.join(' ');
}

/** An e-mail address said aloud: `max.weber12@web.de` → `max dot weber12 at web dot de` (or `… ät web Punkt de`). */
export function sayEmail(address: string, de: boolean): string {
  const [local, domain] = address.split('@') as [string, string];
  const dot = de ? ' Punkt ' : ' dot ';
  const said = (s: string) => s.split('.').join(dot).replaceAll('_', de ? ' Unterstrich ' : ' underscore ').replaceAll('-', de ? ' Bindestrich ' : ' dash ');
  return `${said(local)} ${de ? 'ät' : 'at'} ${said(domain)}`;
}
