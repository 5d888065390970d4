// Whether `report`, `query` and `export` redact what they write: --redact / --no-redact, else
// CONVODUCK_REDACT (for a machine where every output must be redacted). The key comes from
// CONVODUCK_REDACT_KEY or CONVODUCK_REDACT_KEY_FILE only (src/redact/redaction-key.ts): never a
// flag, never the config file, never printed.

import type { Command } from 'commander';
import { loadRedactionKey } from '../../redact/redaction-key.js';
import type { Redaction } from '../../redact/index.js';
import { SettingsError } from './settings.js';

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['', '0', 'false', 'no', 'off'];

/** Adds --redact and --no-redact to an output command. */
export function withRedactOption(command: Command): Command {
  return command
    .option('--redact', 'replace personal data in text, page_url and session_ref (key: $CONVODUCK_REDACT_KEY[_FILE]; default: $CONVODUCK_REDACT)')
    .option('--no-redact', 'do not redact, even when CONVODUCK_REDACT is set');
}

/** The redaction to apply, or null; a missing or bad key with redaction on is a usage error. */
export function resolveRedaction(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): Redaction | null {
  let on = flag;
  if (on === undefined) {
    const value = (env.CONVODUCK_REDACT ?? '').trim().toLowerCase();
    if (ON.includes(value)) on = true;
    else if (OFF.includes(value)) on = false;
    else throw new SettingsError(`CONVODUCK_REDACT is ${JSON.stringify(env.CONVODUCK_REDACT)} — set it to 1 (redact) or 0 (do not)`);
  }
  return on ? { key: loadRedactionKey(env) } : null;
}
