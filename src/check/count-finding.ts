// A listing that ends short of meta.total, judged as sync will treat it: a server whose count is
// off for good is verified once and then trusted (store/count-excess.ts), so it is a warning, or ok
// once the database records it trusted; it fails only when sync will not trust it (a stored
// conversation no longer served). Pure: the database's answer comes in as `seen`.

import { COUNT_OFF, COUNT_OFF_CAUSE, countsMoreThanServed, SERVED_IS_TRUSTED } from '../shared/count-off.js';
import type { CountOffRecord } from '../store/count-excess.js';
import type { Finding } from './findings.js';

/** What the database sync writes says about the count, if the check read one. */
export type CountOffSeen =
  | { kind: 'no-db' }
  | { kind: 'read'; db: string; record: CountOffRecord }
  | { kind: 'unread'; db: string; reason: string };

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The finding of a page that ends the listing `excess` short (`head` says which page and how);
 * `atLeast` when the page came back empty, so the server may count still more than that.
 */
export function judgeCountOff(
  name: 'first-page' | 'last-page',
  head: string,
  excess: number,
  atLeast: boolean,
  values: Record<string, unknown>,
  seen: CountOffSeen,
): Finding {
  const off = `${head} — ${COUNT_OFF}: it ${atLeast ? countsMoreThanServed(excess).replace(/^counts /, 'counts at least ') : countsMoreThanServed(excess)}`;
  const record = seen.kind === 'read' ? seen.record : null;
  const trusted = record?.trusted ?? null;
  // a run after the last trusted one that met the same excess and reported it short: verified by the next
  const reported = record?.reported && record.reported.excess === excess && record.reported.runId > (trusted?.runId ?? 0) ? record.reported : null;
  // the run the message names: one that trusted this excess, else one that reported it, else any that trusted
  const named = trusted?.excess !== excess && reported ? { ...reported, trusted: false } : trusted ? { ...trusted, trusted: true } : null;
  const notServed = record?.storedNotServed ?? [];
  const recorded = {
    serverCountExcess: excess,
    countOffRun: named,
    storedNotServed: notServed.length,
    database: seen.kind === 'no-db' ? null : seen.db,
  };
  if (seen.kind === 'read' && notServed.length > 0) {
    const n = notServed.length;
    return {
      status: 'fail',
      name,
      message:
        `${off}, and ${count(n)} conversation${n === 1 ? '' : 's'} ${seen.db} stores on the pages read ${n === 1 ? 'is' : 'are'} no longer served (e.g. ${notServed[0]}): ` +
        'sync trusts such a count only when every stored conversation is served again, so it reports the listing short on every run as things are',
      values: { ...values, ...recorded },
    };
  }
  if (seen.kind === 'read' && trusted !== null && trusted.excess === excess && !atLeast) {
    return {
      status: 'ok',
      name,
      message: `${off}, as run ${trusted.runId} of ${seen.db} verified: ${SERVED_IS_TRUSTED} (${COUNT_OFF_CAUSE}; status: server count off)`,
      values: { ...values, ...recorded },
    };
  }
  const db = seen.kind === 'no-db' ? '' : seen.db;
  if (reported !== null) {
    return {
      status: 'warn',
      name,
      message:
        `${off}, as run ${reported.runId} of ${db} found and reported short: the next sync that finds the same ${count(excess)} more ` +
        `with every stored conversation served again has it verified, and from then on ${SERVED_IS_TRUSTED} (exit 0, one warning line; ${COUNT_OFF_CAUSE})`,
      values: { ...values, ...recorded },
    };
  }
  const before = trusted !== null && trusted.excess !== excess ? `; run ${trusted.runId} of ${db} trusted ${count(trusted.excess)} more, not ${count(excess)}` : '';
  const unread = seen.kind === 'unread' ? ` (${seen.db} not read: ${seen.reason})` : '';
  return {
    status: 'warn',
    name,
    message:
      `${off}${before}: sync verifies this once: its first run narrows the listing down and reports it short (exit 1); ` +
      `the next finds the same ${count(excess)} more with every stored conversation served again, and from then on ${SERVED_IS_TRUSTED} ` +
      `(exit 0, one warning line; ${COUNT_OFF_CAUSE})${unread}`,
    values: { ...values, ...recorded },
  };
}
