// session_ref replaced by a keyed hash: the same caller gets the same token in every report and
// export made with the same key, so joins and repeat counts still work, while nobody without the
// key can test a guessed phone number or e-mail address against it (a plain hash would allow
// exactly that: the space of phone numbers is small enough to enumerate).

import { createHmac } from 'node:crypto';

export interface KeyedHashOptions {
  /** marks the value as a hash, not a session_ref, wherever it ends up */
  prefix?: string;
  /** hex characters kept of the 64; 20 (80 bits) keeps collisions out of reach at billions of values */
  hexLength?: number;
}

/** HMAC-SHA256 of the UTF-8 value under the key, as `prefix` + truncated lower-case hex. */
export function keyedHash(value: string, key: Uint8Array | string, options: KeyedHashOptions = {}): string {
  const { prefix = 'kh_', hexLength = 20 } = options;
  if (!Number.isInteger(hexLength) || hexLength < 16 || hexLength > 64) {
    throw new RangeError('keyedHash: hexLength must be an integer from 16 to 64');
  }
  return prefix + createHmac('sha256', key).update(value, 'utf8').digest('hex').slice(0, hexLength);
}

const KEY_CHECK_TEXT = 'convoduck redaction at rest key check';

/** A keyed hash of a fixed text: the same key gives the same value; it tells nothing of the key. */
export function atRestKeyCheck(redaction: { key: Uint8Array | string }): string {
  return keyedHash(KEY_CHECK_TEXT, redaction.key);
}
