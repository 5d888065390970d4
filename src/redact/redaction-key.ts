// The key of keyedHash comes from the environment or a file, never from the config or a flag
// (both end up in shell history, process listings and shared repositories). Nothing here ever
// writes the key, or any part of it, into a message.

import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../shared/errors.js';

/** 32 characters: a hex string of 128 bits, or a 256-bit key in base64 (44). */
export const MIN_KEY_LENGTH = 32;

/** The redaction key is missing, unreadable or too short; the CLI shows it as one line (exit 2). */
export class RedactionKeyError extends InvalidInputError {}

const HOW = 'set CONVODUCK_REDACT_KEY or CONVODUCK_REDACT_KEY_FILE to a secret of at least 32 characters (e.g. `openssl rand -hex 32`)';

/** The key from CONVODUCK_REDACT_KEY, or from the file CONVODUCK_REDACT_KEY_FILE names (trimmed). */
export function loadRedactionKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  const inline = env.CONVODUCK_REDACT_KEY;
  const file = env.CONVODUCK_REDACT_KEY_FILE;
  if (inline !== undefined && inline !== '' && file !== undefined && file !== '') {
    throw new RedactionKeyError('both CONVODUCK_REDACT_KEY and CONVODUCK_REDACT_KEY_FILE are set — unset one of them');
  }
  let key: string;
  let source: string;
  if (file !== undefined && file !== '') {
    source = `the key file ${file}`;
    try {
      key = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new RedactionKeyError(`cannot read ${source} (${code}) — ${HOW}`);
    }
  } else if (inline !== undefined && inline !== '') {
    source = 'CONVODUCK_REDACT_KEY';
    key = inline;
  } else {
    throw new RedactionKeyError(`redaction needs a key and none is set — ${HOW}`);
  }
  const trimmed = key.trim();
  if (trimmed.includes('\n')) throw new RedactionKeyError(`${source} holds more than one line — ${HOW}`);
  if (trimmed.length < MIN_KEY_LENGTH) throw new RedactionKeyError(`${source} holds a key that is too short — ${HOW}`);
  return Buffer.from(trimmed, 'utf8');
}
