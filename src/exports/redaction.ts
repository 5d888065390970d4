// An export folder is redacted throughout or not at all: its manifest records whether --redact
// wrote it, and with which key (as a keyed hash of a fixed text, which tells nothing of the key),
// so an incremental export, or `forget --out`, never mixes clear and redacted rows, or hashes
// made with two keys, in one dataset.

import { keyedHash, type Redaction } from '../redact/index.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Manifest } from './manifest.js';

const KEY_CHECK_TEXT = 'convoduck export key check';

/** What the manifest records of the redaction (absent: the export is not redacted). */
export interface ManifestRedaction {
  key_check: string;
}

export function redactionMark(redaction: Redaction | null | undefined): ManifestRedaction | null {
  return redaction ? { key_check: keyedHash(KEY_CHECK_TEXT, redaction.key) } : null;
}

/** Refuses to write into an earlier export redacted otherwise (or with another key). */
export function checkRedaction(manifest: Manifest | null, redaction: Redaction | null | undefined, shownDir: string): void {
  if (!manifest) return;
  const before = manifest.redaction?.key_check ?? null;
  const now = redactionMark(redaction)?.key_check ?? null;
  if (before === now) return;
  if (now === null) {
    throw new InvalidInputError(`--out ${shownDir} holds a redacted export — run with --redact and the key it was made with, or export into a new folder`);
  }
  if (before === null) {
    throw new InvalidInputError(`--out ${shownDir} holds an export made without --redact — export into a new folder, so that clear and redacted rows do not mix`);
  }
  throw new InvalidInputError(`--out ${shownDir} was redacted with another key — set CONVODUCK_REDACT_KEY (or _FILE) to that key, or export into a new folder`);
}
