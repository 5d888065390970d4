// The client a user would write first: fetch in a loop, one request at a time, the API's default
// page size (50), a fixed pause after every request (the spec says "bulk imports should pause
// briefly between calls"), and on a 429 a wait for Retry-After. It stops at a deadline and
// reports how far it got, so its time for the whole job can be extrapolated.

import { setTimeout as sleep } from 'node:timers/promises';

export interface NaiveResult {
  requests: number;
  throttled: number;
  conversations: number;
  /** the whole job was done before the deadline */
  finished: boolean;
  seconds: number;
}

interface Page {
  data: { id: string }[];
  meta: { next_page: number | null };
}

export async function runNaive(baseUrl: string, apiKey: string, pauseMs: number, deadlineMs: number): Promise<NaiveResult> {
  const started = performance.now();
  const headers = { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' };
  const result: NaiveResult = { requests: 0, throttled: 0, conversations: 0, finished: false, seconds: 0 };
  const out: unknown[] = [];
  const timeUp = (): boolean => performance.now() - started >= deadlineMs;

  const get = async <T>(url: string): Promise<T> => {
    for (;;) {
      const res = await fetch(url, { headers });
      result.requests++;
      if (res.status === 429) {
        result.throttled++;
        await res.arrayBuffer();
        await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
        continue;
      }
      if (!res.ok) throw new Error(`naive client: GET ${url} answered ${res.status}`);
      const body = (await res.json()) as T;
      await sleep(pauseMs);
      return body;
    }
  };

  try {
    const spaces = await get<{ data: { slug: string }[] }>(`${baseUrl}/spaces`);
    const space = `${baseUrl}/spaces/${encodeURIComponent(spaces.data[0]!.slug)}`;
    for (const what of ['agents', 'tools']) {
      for (let page = 1; ; page++) {
        const r = await get<Page>(`${space}/${what}?page=${page}`);
        out.push(...r.data);
        if (r.meta.next_page === null || timeUp()) break;
      }
    }
    listing: for (let page = 1; !timeUp(); page++) {
      const r = await get<Page>(`${space}/conversations?page=${page}&per_page=50`);
      for (const c of r.data) {
        if (timeUp()) break listing;
        out.push(await get(`${space}/conversations/${c.id}`));
        result.conversations++;
      }
      if (r.meta.next_page === null) {
        result.finished = true;
        break;
      }
    }
  } finally {
    result.seconds = (performance.now() - started) / 1000;
  }
  return result;
}
