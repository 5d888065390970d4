// The routes for the space itself and its configuration: /spaces (a one-element list),
// agents (list without behavior/workflow, filters status and search; one agent in full),
// tools (list, filter connection_id; one tool), connections (list without `tools`; one with them).
// Every list pages the same way (listing.ts); every timestamp is rendered in timeFormat.

import type { AgentDetail, ConnectionDetail, Tool } from '../../api/types.js';
import { AGENT_STATUSES } from '../../api/types.js';
import type { Dataset } from '../dataset/dataset.js';
import { messyAgent, messyConnection, messyTool } from '../real-data/real-data-config.js';
import { listMeta, servedPageSize } from './listing.js';
import type { RuntimeOptions } from '../options.js';
import { notFound, type RouteResult } from './responses.js';
import { renderRecordTimes } from './time-format.js';
import { checkEnum, checkUuid, paging, throwIfErrors, type FieldErrors } from './validation.js';

const agentListView = (a: AgentDetail): unknown => {
  const { behavior: _b, workflow: _w, ...rest } = a;
  return rest;
};

const connectionListView = (c: ConnectionDetail): unknown => {
  const { tools: _t, ...rest } = c;
  return rest;
};

export class SpaceRoutes {
  constructor(
    private readonly dataset: Dataset,
    private readonly options: RuntimeOptions,
    /** realData.configText: names (and an agent's prompt and node titles) cut mid-surrogate */
    private readonly messyConfig = false,
  ) {}

  private agentServed = (a: AgentDetail): AgentDetail => (this.messyConfig ? messyAgent(a) : a);
  private toolServed = (t: Tool): Tool => (this.messyConfig ? messyTool(t) : t);
  private connectionServed = (c: ConnectionDetail): ConnectionDetail => (this.messyConfig ? messyConnection(c) : c);

  spaces(q: URLSearchParams): RouteResult {
    return this.list([this.dataset.space], q, {}, (s) => s);
  }

  agents(q: URLSearchParams): RouteResult {
    const errors: FieldErrors = {};
    const status = checkEnum(q, 'status', AGENT_STATUSES, errors);
    const search = q.get('search')?.toLowerCase();
    const items = this.dataset.agents.filter((a) => (status === undefined || a.status === status) && (search === undefined || a.name.toLowerCase().includes(search)));
    return this.list(items, q, errors, (a) => agentListView(this.agentServed(a)));
  }

  agent(id: string): RouteResult {
    const a = this.dataset.agents.find((x) => x.id === id.toLowerCase());
    if (!a) notFound('agent', id, this.dataset.space.slug);
    return this.one(this.agentServed(a));
  }

  tools(q: URLSearchParams): RouteResult {
    const errors: FieldErrors = {};
    const connectionId = checkUuid(q, 'connection_id', errors);
    const items = this.dataset.tools.filter((t: Tool) => connectionId === undefined || t.connection_id === connectionId);
    return this.list(items, q, errors, this.toolServed);
  }

  tool(id: string): RouteResult {
    const t = this.dataset.tools.find((x) => x.id === id.toLowerCase());
    if (!t) notFound('tool', id, this.dataset.space.slug);
    return this.one(this.toolServed(t));
  }

  connections(q: URLSearchParams): RouteResult {
    return this.list(this.dataset.connections, q, {}, (c) => connectionListView(this.connectionServed(c)));
  }

  connection(id: string): RouteResult {
    const c = this.dataset.connections.find((x) => x.id === id.toLowerCase());
    if (!c) notFound('connection', id, this.dataset.space.slug);
    return this.one(this.connectionServed(c));
  }

  private one(record: unknown): RouteResult {
    return { status: 200, body: JSON.stringify({ data: renderRecordTimes(record, this.options.timeFormat) }) };
  }

  private list<T>(items: readonly T[], q: URLSearchParams, errors: FieldErrors, view: (item: T) => unknown): RouteResult {
    const o = this.options;
    const { page, perPage } = paging(q, errors);
    throwIfErrors(errors);
    const served = servedPageSize(perPage, o);
    const start = (page - 1) * served;
    const data = start < items.length ? items.slice(start, start + served).map((item) => renderRecordTimes(view(item), o.timeFormat)) : [];
    return { status: 200, body: JSON.stringify({ data, meta: listMeta(page, served, items.length, o, perPage) }) };
  }
}
