// What the simulator records about each request (its own client's and the other client's):
// the entry in requestLog, and the onRequest observer called once its status is final.

import type { RuntimeOptions } from '../options.js';

export type RequestKind =
  | 'spaces'
  | 'agents'
  | 'tools'
  | 'connections'
  | 'conversation_list'
  | 'conversation_detail'
  | 'recording'
  | 'other';

export interface RequestLogEntry {
  /** ms epoch when received */
  t: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** HTTP status sent; 0 when the connection was dropped without a response */
  status: number;
  client: 'key' | 'other';
  kind: RequestKind;
  /** set when a fault was injected */
  fault?: 'error5xx' | 'drop' | 'truncate' | 'reset';
  /** a recording request: the headers it came with, and which host took it (the link's, or the storage a redirect leads to) */
  headers?: Record<string, string | string[] | undefined>;
  host?: 'link' | 'storage';
}

export class RequestRecorder {
  constructor(
    private readonly options: RuntimeOptions,
    readonly log: RequestLogEntry[],
  ) {}

  /** Logs a request as it arrives (when logRequests is on); its status follows with `done`. */
  add(entry: RequestLogEntry): void {
    if (this.options.logRequests) this.log.push(entry);
  }

  /** Sets the final status and tells onRequest. */
  done(entry: RequestLogEntry, status: number): void {
    entry.status = status;
    if (this.options.onRequest) {
      try {
        this.options.onRequest(entry);
      } catch {
        // an observer must not break the server
      }
    }
  }
}
