// Whether `report`, `query` and `export` redact what they write: --redact / --no-redact, else
// CONVODUCK_REDACT (for a machine where every output must be redacted); and whether `sync`
// redacts before it stores: --redact-at-rest, a space's redact_at_rest, CONVODUCK_REDACT_AT_REST. The key comes from
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
  return switchedOn(flag, 'CONVODUCK_REDACT', env) ? { key: loadRedactionKey(env) } : null;
}

/**
 * Redaction at rest per space: a space's own `redact_at_rest` (config), else --redact-at-rest /
 * --no-redact-at-rest, else CONVODUCK_REDACT_AT_REST. The key is read once, when any space needs it.
 */
export function resolveRedactAtRest(flag: boolean | undefined, perSpace: readonly (boolean | undefined)[], env: NodeJS.ProcessEnv = process.env): (Redaction | null)[] {
  const run = switchedOn(flag, 'CONVODUCK_REDACT_AT_REST', env);
  const on = perSpace.map((own) => own ?? run);
  const redaction = on.some(Boolean) ? { key: loadRedactionKey(env) } : null;
  return on.map((o) => (o ? redaction : null));
}

/** The line that says a space's clear text was redacted at rest (src/store/redact-stored.ts). */
export function storedRedacted(dbPath: string): (space: string, bodies: number) => void {
  return (space, bodies) =>
    process.stderr.write(`convoduck: space ${space} held ${bodies} conversation bodies in clear text: redacted them at rest and rewrote ${dbPath} (for good)\n`);
}

/** The flag when given, else the environment variable (1/true/yes/on or 0/false/no/off/empty). */
function switchedOn(flag: boolean | undefined, variable: string, env: NodeJS.ProcessEnv): boolean {
  if (flag !== undefined) return flag;
  const value = (env[variable] ?? '').trim().toLowerCase();
  if (ON.includes(value)) return true;
  if (OFF.includes(value)) return false;
  throw new SettingsError(`${variable} is ${JSON.stringify(env[variable])} — set it to 1 (redact) or 0 (do not)`);
}
