// When undici writes a request to its socket: the moment the server starts to receive it, which
// can be tens of milliseconds after the rate limiter let it go (a new connection being opened, a
// busy event loop). Read from undici's diagnostics channel, matched by origin and path.

import diagnostics_channel from 'node:diagnostics_channel';

type Watcher = () => void;

/** Waiting requests by origin + path + query, first registered first served. */
const watchers = new Map<string, Watcher[]>();
let subscribed = false;

function onSendHeaders(message: unknown): void {
  const request = (message as { request?: { origin?: unknown; path?: unknown } } | undefined)?.request;
  if (!request) return;
  const key = `${String(request.origin)}${String(request.path)}`;
  const list = watchers.get(key);
  const watcher = list?.shift();
  if (list?.length === 0) watchers.delete(key);
  watcher?.();
}

/**
 * Calls `watcher` when the request to `url` is written to its socket.
 * Returns the function that stops watching (call it once the request is done, whatever happened).
 */
export function watchSocketWrite(url: URL, watcher: Watcher): () => void {
  if (!subscribed) {
    diagnostics_channel.subscribe('undici:client:sendHeaders', onSendHeaders);
    subscribed = true;
  }
  const key = `${url.origin}${url.pathname}${url.search}`;
  const list = watchers.get(key) ?? [];
  list.push(watcher);
  watchers.set(key, list);
  return () => {
    const current = watchers.get(key);
    const i = current?.indexOf(watcher) ?? -1;
    if (current && i >= 0) {
      current.splice(i, 1);
      if (current.length === 0) watchers.delete(key);
    }
  };
}
