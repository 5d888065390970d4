// What happens while nobody asks: new conversations arrive (arrivalsPerMinute), another
// client spends the same key's budget (otherClientRpm, evenly spaced), and open conversations
// finish once the simulated clock passes their natural end (autoFinish). Rates are per real
// minute, caught up on ticks of at most a second.

import type { ConversationSummary } from '../../api/types.js';
import type { Dataset } from '../dataset/dataset.js';
import type { KeyBudget } from './key-budget.js';
import type { RuntimeOptions } from '../options.js';
import type { RequestLogEntry, RequestRecorder } from '../http/request-log.js';

/**
 * Adds n conversations starting at the simulated now (open by default). With arrivalLagMs, a
 * lagging server lists a conversation only once it has ended: started that long ago, finished by now.
 */
export function addConversations(dataset: Dataset, now: Date, o: RuntimeOptions, n: number, opts: { open?: boolean; startedAt?: Date } = {}): ConversationSummary[] {
  const lagged = opts.startedAt === undefined && o.arrivalLagMs > 0;
  const at = opts.startedAt ?? new Date(now.getTime() - (lagged ? o.arrivalLagMs : 0));
  const open = opts.open ?? !lagged;
  const out = [];
  for (let i = 0; i < n; i++) out.push(dataset.addConversation(at, { open, endBy: lagged && !open ? now : undefined }));
  return out;
}

/** Fires `perMinute` times per real minute, in batches of what is due. */
interface Ticker {
  timer: NodeJS.Timeout | null;
  t0: number;
  done: number;
}

export interface BackgroundParts {
  options: RuntimeOptions;
  dataset: Dataset;
  clock: () => Date;
  budget: KeyBudget;
  recorder: RequestRecorder;
  /** the space slug, for the other client's request path */
  space: string;
}

export class BackgroundClients {
  private readonly arrivals: Ticker = { timer: null, t0: 0, done: 0 };
  private readonly other: Ticker = { timer: null, t0: 0, done: 0 };
  private finisher: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly parts: BackgroundParts) {}

  /** (Re)starts every background client from the current options. */
  restart(): void {
    const { options: o, dataset, clock } = this.parts;
    this.restartTicker(this.arrivals, o.arrivalsPerMinute, (n) => addConversations(dataset, clock(), o, n));
    this.restartTicker(this.other, o.otherClientRpm, (n) => this.otherRequests(n));
    if (this.finisher) clearInterval(this.finisher);
    this.finisher = null;
    if (!this.stopped && o.autoFinish) this.finisher = setInterval(() => dataset.finishDue(clock()), 1000);
  }

  /** Stops everything for good (restart then does nothing). */
  stop(): void {
    this.stopped = true;
    for (const tk of [this.arrivals, this.other]) {
      if (tk.timer) clearInterval(tk.timer);
      tk.timer = null;
    }
    if (this.finisher) clearInterval(this.finisher);
    this.finisher = null;
  }

  private restartTicker(tk: Ticker, perMinute: number, fire: (n: number) => void): void {
    if (tk.timer) clearInterval(tk.timer);
    tk.timer = null;
    if (this.stopped || !(perMinute > 0)) return;
    tk.t0 = Date.now();
    tk.done = 0;
    const interval = Math.max(5, Math.min(1000, Math.floor(60_000 / perMinute)));
    tk.timer = setInterval(() => {
      const due = Math.floor(((Date.now() - tk.t0) * perMinute) / 60_000) - tk.done;
      if (due > 0) {
        tk.done += due;
        fire(due);
      }
    }, interval);
  }

  private otherRequests(n: number): void {
    const { budget, recorder, space } = this.parts;
    for (let i = 0; i < n; i++) {
      const t = Date.now();
      // The other integration holds the same key: a deleted key fails for it too, spending nothing.
      const status = budget.revoked() ? 401 : budget.acquire(t, 'other').ok ? 200 : 429;
      const entry: RequestLogEntry = {
        t,
        method: 'GET',
        path: `/api/v1/spaces/${space}/conversations`,
        query: {},
        status: 0,
        client: 'other',
        kind: 'conversation_list',
      };
      recorder.add(entry);
      recorder.done(entry, status);
    }
  }
}
