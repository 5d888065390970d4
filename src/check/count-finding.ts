// A listing that ends short of meta.total, judged as sync will treat it: a server whose count is
// off for good is verified once and then trusted (store/count-excess.ts), so it is a warning, or ok
// once the database records it trusted; it fails only when sync will not trust it (a stored
// conversation no longer served). A short first page of several may also be a page size
// misreported: both readings are named. Pure: the database's answer comes in as `seen`.

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
 * `atLeast` when the page came back empty, so the server may count still more than that;
 * `firstOfMany` for a short first page of several: only part of the shortfall, and one page cannot
 * tell a count off from a page size misreported (meta.per_page above what is served).
 */
export function judgeCountOff(
  name: 'first-page' | 'last-page',
  head: string,
  excess: number,
  atLeast: boolean,
  values: Record<string, unknown>,
  seen: CountOffSeen,
  firstOfMany: FirstOfMany | null = null,
): Finding {
  const record = seen.kind === 'read' ? seen.record : null;
  const trusted = record?.trusted ?? null;
  // a first page shows only its part of the listing's shortfall: a run's excess covers it when at least as large
  const covers = (runExcess: number) => (firstOfMany ? runExcess >= excess : runExcess === excess);
  // a run after the last trusted one that met the same excess and reported it short: verified by the next
  const reported = record?.reported && covers(record.reported.excess) && record.reported.runId > (trusted?.runId ?? 0) ? record.reported : null;
  const countOff = `${COUNT_OFF}: it ${atLeast || firstOfMany ? countsMoreThanServed(excess).replace(/^counts /, 'counts at least ') : countsMoreThanServed(excess)}`;
  // Until a run of sync has seen the count off, a short first page may as well be a misreported page size.
  const settled = (trusted !== null && covers(trusted.excess)) || reported !== null;
  const off =
    firstOfMany && !settled
      ? `${head} — either ${countOff}, or it serves fewer per page than meta.per_page says (one page cannot tell which)`
      : `${head} — ${countOff}`;
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
  if (seen.kind === 'read' && trusted !== null && covers(trusted.excess) && !atLeast) {
    const its = firstOfMany ? ` (${count(trusted.excess)} more in its window)` : '';
    return {
      status: 'ok',
      name,
      message: `${off}, as run ${trusted.runId} of ${seen.db} verified${its}: ${SERVED_IS_TRUSTED} (${COUNT_OFF_CAUSE}; status: server count off)`,
      values: { ...values, ...recorded },
    };
  }
  const db = seen.kind === 'no-db' ? '' : seen.db;
  if (reported !== null) {
    return {
      status: 'warn',
      name,
      message:
        `${off}, as run ${reported.runId} of ${db} found and reported short: the next sync that finds the same ${count(firstOfMany ? reported.excess : excess)} more ` +
        `with every stored conversation served again has it verified, and from then on ${SERVED_IS_TRUSTED} (exit 0, one warning line; ${COUNT_OFF_CAUSE})`,
      values: { ...values, ...recorded },
    };
  }
  const before =
    trusted !== null && !covers(trusted.excess) ? `; run ${trusted.runId} of ${db} trusted ${count(trusted.excess)} more, not ${firstOfMany ? 'at least ' : ''}${count(excess)}` : '';
  const unread = seen.kind === 'unread' ? ` (${seen.db} not read: ${seen.reason})` : '';
  // sync takes the page size from what the first page held (crawler/plan.ts servedPageSize)
  const pages = firstOfMany
    ? `sync pages by what the first page held (${count(firstOfMany.items)} per page), which lists all of a server that serves that many; a count off `
    : '';
  const same = firstOfMany ? 'shortfall' : `${count(excess)} more`;
  return {
    status: 'warn',
    name,
    message:
      `${off}${before}: ${pages}sync verifies ${firstOfMany ? 'once' : 'this once'}: its first run narrows the listing down and reports it short (exit 1); ` +
      `the next finds the same ${same} with every stored conversation served again, and from then on ${SERVED_IS_TRUSTED} ` +
      `(exit 0, one warning line; ${COUNT_OFF_CAUSE})${unread}`,
    values: { ...values, ...recorded },
  };
}

/** A first page short inside a listing of several pages: what it held (sync pages by that). */
export interface FirstOfMany {
  items: number;
}
