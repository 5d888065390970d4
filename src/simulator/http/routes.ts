// Which handler answers a request. GET only (HEAD too); everything under /api/v1, see
// shared/api/agent-management-api.md §4:
//   /spaces                                   {data: [Space], meta}  (a one-element list)
//   /spaces/{space}/agents[?status&search]    list without behavior/workflow; /agents/{id} full
//   /spaces/{space}/tools[?connection_id]     list; /tools/{id}
//   /spaces/{space}/connections               list without `tools`; /connections/{id} with tools
//   /spaces/{space}/conversations[?agent_id&channel&from&to&outcome]   newest first; /{id} detail
// Lists take page (>= 1) and per_page (1..200, default 50); meta = {page, per_page, total,
// next_page}; a page past the end has empty data and next_page null (the readings the spec
// leaves open: listing.ts). A route is matched before the request is authenticated, so the
// log knows its kind; its checks (405 for other methods, 403 for another space) run only
// when it is answered.

import type { ConversationRoutes } from './conversation-routes.js';
import type { RequestKind } from './request-log.js';
import { HttpError, type RouteResult } from './responses.js';
import type { SpaceRoutes } from './space-routes.js';

export interface Route {
  kind: RequestKind;
  /** the answer; throws HttpError for an error answer */
  run: (q: URLSearchParams) => RouteResult;
}

export type Router = (method: string, pathname: string) => Route;

export function createRouter(space: string, records: SpaceRoutes, conversations: ConversationRoutes): Router {
  return function matchRoute(method: string, pathname: string): Route {
    let path = pathname;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    let segs: string[];
    try {
      segs = path.split('/').slice(1).map((s) => decodeURIComponent(s));
    } catch {
      segs = [];
    }
    const noRoute = (): Route => ({
      kind: 'other',
      run: () => {
        throw new HttpError(404, 'not_found', `No route for ${method} ${pathname}.`);
      },
    });
    if (segs[0] !== 'api' || segs[1] !== 'v1' || segs[2] !== 'spaces') return noRoute();
    const rest = segs.slice(3);
    const get = (kind: RequestKind, run: (q: URLSearchParams) => RouteResult): Route => ({
      kind,
      run: (q) => {
        if (method !== 'GET' && method !== 'HEAD') {
          throw new HttpError(405, 'method_not_allowed', `The simulator is read-only: ${method} ${pathname} is not supported, only GET.`);
        }
        return run(q);
      },
    });
    if (rest.length === 0) return get('spaces', (q) => records.spaces(q));
    const [slug, collection, id, extra] = rest;
    if (slug === undefined || collection === undefined || extra !== undefined) return noRoute();
    const guarded = (kind: RequestKind, run: (q: URLSearchParams) => RouteResult): Route =>
      get(kind, (q) => {
        if (slug !== space) {
          throw new HttpError(403, 'forbidden', `This API key does not give access to space "${slug}".`);
        }
        return run(q);
      });
    switch (collection) {
      case 'agents':
        return id === undefined ? guarded('agents', (q) => records.agents(q)) : guarded('agents', () => records.agent(id));
      case 'tools':
        return id === undefined ? guarded('tools', (q) => records.tools(q)) : guarded('tools', () => records.tool(id));
      case 'connections':
        return id === undefined ? guarded('connections', (q) => records.connections(q)) : guarded('connections', () => records.connection(id));
      case 'conversations':
        return id === undefined ? guarded('conversation_list', (q) => conversations.list(q)) : guarded('conversation_detail', () => conversations.detail(id));
      default:
        return noRoute();
    }
  };
}
