// How the server's clock (its Date header) and its newest conversation stand against this
// machine's clock, as clauses of the check's timestamps finding. Pure.

/** The server's clock against this machine's, as the check measured it (seconds). */
export interface ClockSeen {
  /** the server's Date header minus this machine's clock; null without a Date header */
  skewSeconds: number | null;
  /** the newest started_at listed minus the server's now; null when nothing was listed */
  newestAheadSeconds: number | null;
}

/** A difference of clocks under this (seconds) is within what a Date header and a slow answer explain. */
const CLOCK_SAID_SECONDS = 60;

function hoursMinutes(seconds: number): string {
  const m = Math.round(Math.abs(seconds) / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** What is off about the server's clock, as clauses (none when it agrees within a minute). */
export function clockClauses(clock: ClockSeen): string[] {
  const out: string[] = [];
  if (clock.skewSeconds !== null && Math.abs(clock.skewSeconds) > CLOCK_SAID_SECONDS) {
    out.push(`the server's clock (its Date header) runs ${hoursMinutes(clock.skewSeconds)} ${clock.skewSeconds < 0 ? 'behind' : 'ahead of'} this machine's`);
  }
  if (clock.newestAheadSeconds !== null && clock.newestAheadSeconds > CLOCK_SAID_SECONDS) {
    out.push(`its newest conversation starts ${hoursMinutes(clock.newestAheadSeconds)} after its own now`);
  }
  return out;
}

