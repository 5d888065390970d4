// The Agent Management API's endpoints that convoduck reads (shared/api/agent-management-api.md
// §4), on top of the rate-limited, retrying transport (http.ts).

import { ApiError } from './errors.js';
import { HttpClient, type Query } from './http.js';
import { isObject, toInt, truncate } from './response.js';
import type { ListMeta, ListResponse, Space } from './types.js';

export { parseBaseUrl } from './base-url.js';
export { ApiError, AuthError, NotFoundError, TransientError, type ApiErrorInit } from './errors.js';
export type { ApiClientOptions, ClientEvent, ClientStats, ConnectionTrouble, Query, QueryValue } from './http.js';
export type { GetResult } from './response.js';

export class ApiClient extends HttpClient {
  /** The key's space (GET /spaces; `data` may be the space or a list holding it). */
  async getSpace(): Promise<Space> {
    const { json } = await this.get('/spaces');
    const data = isObject(json) ? json.data : undefined;
    const space = Array.isArray(data) ? data[0] : data;
    if (!isObject(space) || typeof space.slug !== 'string' || space.slug === '') {
      throw new ApiError('GET /spaces: the response names no space (expected data.slug or data[0].slug)', {
        status: 200,
        code: 'bad_response',
        method: 'GET',
        path: `${this.baseUrl.pathname}/spaces`,
        body: json,
      });
    }
    return {
      ...space,
      slug: space.slug,
      llm_options: Array.isArray(space.llm_options) ? (space.llm_options as { id: string }[]) : [],
    } as Space;
  }

  /** One page of a list endpoint, checked for `data` (array) and `meta`. */
  async listPage<T>(path: string, query: Query = {}): Promise<ListResponse<T> & { text: string }> {
    const { json, text } = await this.get(path, query);
    if (!isObject(json) || !Array.isArray(json.data) || !isObject(json.meta)) {
      const url = this.buildUrl(path, query);
      throw new ApiError(`GET ${url.pathname}${url.search}: not a list response (expected {data: [...], meta: {...}})`, {
        status: 200,
        code: 'bad_response',
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        raw: truncate(this.redact(text), 2000),
      });
    }
    const m = json.meta;
    const meta: ListMeta = {
      page: toInt(m.page) ?? 1,
      per_page: toInt(m.per_page) ?? json.data.length,
      total: toInt(m.total) ?? json.data.length,
      next_page: toInt(m.next_page),
    };
    return { data: json.data as T[], meta, text };
  }

  /** Every page of a list (per_page 200 unless given), following meta.next_page. */
  async *listPages<T>(path: string, query: Query = {}): AsyncGenerator<ListResponse<T> & { text: string }> {
    let page = toInt(query.page) ?? 1;
    const seen = new Set<number>();
    for (;;) {
      seen.add(page);
      const res = await this.listPage<T>(path, { per_page: 200, ...query, page });
      yield res;
      const next = res.meta.next_page;
      if (next === null || res.data.length === 0) return;
      if (seen.has(next)) {
        throw new ApiError(`GET ${this.baseUrl.pathname}${path}: meta.next_page ${next} was already fetched (the list loops)`, {
          status: 200,
          code: 'bad_response',
          method: 'GET',
          path: `${this.baseUrl.pathname}${path}`,
        });
      }
      page = next;
    }
  }

  /** Every item of a list, page after page (see listPages). */
  async *listAll<T>(path: string, query: Query = {}): AsyncGenerator<T> {
    for await (const page of this.listPages<T>(path, query)) yield* page.data;
  }

  /** One agent with behavior and workflow: the parsed body (`{data: …}`) and the raw text the store keeps. */
  async getAgent(space: string, id: string): Promise<{ json: unknown; text: string }> {
    const { json, text } = await this.get(`/spaces/${encodeURIComponent(space)}/agents/${encodeURIComponent(id)}`);
    return { json, text };
  }

  /** One conversation in full: the parsed body (`{data: …}`) and the raw text the store keeps. */
  async getConversation(space: string, id: string): Promise<{ json: unknown; text: string; notUtf8: boolean }> {
    const { json, text, notUtf8 } = await this.get(
      `/spaces/${encodeURIComponent(space)}/conversations/${encodeURIComponent(id)}`,
    );
    return { json, text, notUtf8: notUtf8 === true };
  }
}
