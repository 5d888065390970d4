// Personal data in free text: detection, redaction to typed placeholders, keyed hashing of
// session_ref. Pure functions (the key loader aside, which reads the environment or a file);
// what is caught and what is not is documented in redact-text.ts and docs/personal-data.md.

export { detectCards, isCardNumber, issuerAccepts } from './card.js';
export { detectPersonalData } from './detect.js';
export { detectEmails } from './email.js';
export { detectIbans, ibanValid, mod97 } from './iban.js';
export { atRestKeyCheck, keyedHash, type KeyedHashOptions } from './keyed-hash.js';
export { luhnValid } from './luhn.js';
export { detectPhones, isPhoneNumber } from './phone.js';
export { redactText, type RedactOptions } from './redact-text.js';
export { detectSpokenNumbers, type SpokenNumber } from './spoken.js';
export { detectSpokenEmails, type SpokenEmail } from './spoken-email.js';
export { SPOKEN_RUN_RE2 } from './spoken-digits.js';
export { redactedSql, redactValue, REDACTED_COLUMNS, registerRedaction, rowRedactor, ruleOf, type ColumnRule, type Redaction } from './outputs.js';
export { loadRedactionKey, MIN_KEY_LENGTH, RedactionKeyError } from './redaction-key.js';
export { PERSONAL_KINDS, type PersonalKind, type Span } from './spans.js';
export { redactUrlQuery, type UrlQueryMode } from './url-query.js';
export { redactBody, redactBodyText } from './stored-body.js';
