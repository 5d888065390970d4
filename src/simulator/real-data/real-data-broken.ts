// A detail body the API broke on the wire: JSON text with a raw control character inside a string
// (a backend that forgot to escape it), or a byte that is not UTF-8 (a backend that cut a
// character between its bytes). The break goes just inside the summary's string, else the first
// transcript text's.

export const BROKEN_BODIES = ['invalid_json', 'invalid_utf8'] as const;
export type BrokenBody = (typeof BROKEN_BODIES)[number];

/** What a careful client does with each: a body that does not parse is set aside (kept as text); a byte that is not UTF-8 reads as U+FFFD. */
export const BROKEN_EXPECT: Record<BrokenBody, 'coerced' | 'set_aside'> = { invalid_json: 'set_aside', invalid_utf8: 'coerced' };

function breakAt(body: string): number {
  for (const key of ['"summary":"', '"text":"']) {
    const i = body.indexOf(key);
    if (i >= 0) return i + key.length;
  }
  throw new Error('realData: a broken body needs a summary or a transcript text to break');
}

export function breakBody(body: string, kind: BrokenBody): string | Buffer {
  const at = breakAt(body);
  if (kind === 'invalid_json') return `${body.slice(0, at)}\u0001${body.slice(at)}`;
  return Buffer.concat([Buffer.from(body.slice(0, at), 'utf8'), Buffer.from([0xff]), Buffer.from(body.slice(at), 'utf8')]);
}
