// The configuration side of the simulated space, generated once from the seed: the space, its
// connections, tools and agents (3–6 active, order support and web chat always; one paused,
// one draft). All of it comes from one PRNG stream in a fixed order, so the order of the
// draws below is part of the seeded output.

import type { AgentDetail, ConnectionDetail, Space, Tool } from '../../api/types.js';
import { renderPrompt } from './agent-edits.js';
import { formatMeta, must } from './dataset-format.js';
import { Rng, hashSeed } from '../random.js';
import {
  ACTIVE_TEMPLATES,
  COMPANIES,
  DRAFT_TEMPLATE,
  LLM_OPTIONS,
  PAUSED_TEMPLATE,
  SLUG_SUFFIXES,
  TOOL_DEFS,
  type AgentTemplate,
  type ConnectionKey,
} from './space-catalog.js';
import { buildWorkflow, type CompiledWorkflow, type ToolRt } from './workflow.js';

const DAY_MS = 86_400_000;

/** An agent that takes conversations, with what generating them needs. */
export interface AgentRt {
  detail: AgentDetail;
  tpl: AgentTemplate;
  wf: CompiledWorkflow;
  /** no conversations start at or after this instant (paused agents) */
  pausedAtMs: number | null;
}

export interface SpaceSetup {
  space: Space;
  company: string;
  /** the company's web domain (chat page URLs, shop API) */
  domain: string;
  connections: ConnectionDetail[];
  tools: Tool[];
  /** newest first */
  agents: AgentDetail[];
  /** when the paused agent stopped taking conversations */
  pausedAtMs: number;
  /** agents (with their weights) that take conversations before and after pausedAtMs */
  eligibleBefore: (readonly [AgentRt, number])[];
  eligibleAfter: (readonly [AgentRt, number])[];
}

/** `slugOverride`: the space's slug instead of the one drawn from the seed (many simulated spaces need distinct ones). */
export function setUpSpace(seed: number, nowMs: number, days: number, slugOverride?: string): SpaceSetup {
  const rng = new Rng(hashSeed(seed, 0xca7a));
  const [companySlug, companyName] = rng.pick(COMPANIES);
  const domain = `${companySlug}.example`;
  const suffix = rng.pick(SLUG_SUFFIXES);
  // the seed in the slug: 32 company-suffix pairs are shared by many seeds, a space's slug is its own
  const slug = slugOverride ?? `${companySlug}-${suffix}-${seed}`;
  const space: Space = {
    slug,
    name: `${companyName} ${suffix.replace(/^./, (c) => c.toUpperCase())}`,
    llm_options: LLM_OPTIONS.map((id) => ({ id })),
  };
  const metaTs = (minDaysAgo: number, maxDaysAgo: number): number =>
    Math.floor((nowMs - rng.float(minDaysAgo, maxDaysAgo) * DAY_MS) / 1000) * 1000;

  // Connections
  const connDefs: { key: ConnectionKey; name: string; kind: string; connector: string | null; module: string | null; base_url: string; auth_status: string }[] = [
    { key: 'shop', name: `${companyName} shop backend`, kind: 'custom', connector: null, module: null, base_url: `https://api.${domain}/v2`, auth_status: 'configured' },
    { key: 'calendar', name: 'Showroom calendar', kind: 'connector', connector: 'google_calendar', module: null, base_url: 'https://www.googleapis.com/calendar/v3', auth_status: 'configured' },
    { key: 'helpdesk', name: 'Helpdesk & billing', kind: 'module', connector: null, module: 'tickets', base_url: `https://${slug}.platform.example/modules/tickets`, auth_status: rng.chance(0.5) ? 'configured' : 'error' },
  ];
  const connByKey = new Map<ConnectionKey, ConnectionDetail>();
  const connections = connDefs.map((d) => {
    const created = metaTs(days + 100, days + 400);
    const conn: ConnectionDetail = {
      id: rng.uuid(),
      name: d.name,
      kind: d.kind,
      connector: d.connector,
      module: d.module,
      base_url: d.base_url,
      auth_status: d.auth_status,
      tool_count: 0,
      created_at: formatMeta(created),
      updated_at: formatMeta(created + rng.int(0, 90) * DAY_MS),
      tools: [],
    };
    connByKey.set(d.key, conn);
    return conn;
  });

  // Tools
  const toolsBySlug = new Map<string, ToolRt>();
  const tools = TOOL_DEFS.map((def) => {
    const conn = must(connByKey.get(def.connection), 'connection');
    const created = metaTs(days + 30, days + 100);
    const tool: Tool = {
      id: rng.uuid(),
      connection_id: conn.id,
      slug: def.slug,
      name: def.name,
      description: def.description,
      recipe: {
        kind: 'fetch',
        announce: def.announce !== null,
        announce_text: def.announce ?? '',
        sources: {
          a: {
            method: def.method,
            url: def.url,
            params: def.params.map((p) => ({ from: 'llm', name: p.name, value: p.value, type: 'string', required: p.required })),
          },
        },
        output: { fields: [...def.fields], limit: def.limit, remember: [...def.remember] },
      },
      usage_count: 0,
      sync_status: 'synced',
      sync_error: null,
      created_at: formatMeta(created),
      updated_at: formatMeta(created + rng.int(0, 20) * DAY_MS),
    };
    conn.tool_count++;
    conn.tools.push({ id: tool.id, slug: tool.slug, name: tool.name });
    toolsBySlug.set(def.slug, { def, tool });
    return tool;
  });

  // Agents: 3–6 active (order support and web chat always), one paused, one draft.
  const [first, second, ...rest] = ACTIVE_TEMPLATES;
  const activeCount = rng.int(3, 6);
  const templates: AgentTemplate[] = [must(first, 'template'), must(second, 'template'), ...rng.shuffle([...rest]).slice(0, activeCount - 2)];
  const pausedAtMs = Math.floor((nowMs - rng.float(4, Math.max(5, Math.min(12, days - 1))) * DAY_MS) / 1000) * 1000;
  const all: { tpl: AgentTemplate; status: string }[] = [
    ...templates.map((tpl) => ({ tpl, status: 'active' })),
    { tpl: PAUSED_TEMPLATE, status: 'paused' },
    { tpl: DRAFT_TEMPLATE, status: 'draft' },
  ];
  const agentRts: AgentRt[] = [];
  const agents = all.map(({ tpl, status }) => {
    const { workflow, compiled, toolIds } = buildWorkflow(tpl, toolsBySlug, rng);
    if (rng.chance(0.5) && !toolIds.includes(toolsBySlug.get('create_ticket')!.tool.id)) {
      toolIds.push(toolsBySlug.get('create_ticket')!.tool.id);
    }
    for (const id of toolIds) {
      const t = tools.find((x) => x.id === id);
      if (t) t.usage_count++;
    }
    const created = status === 'draft' ? metaTs(1, 3) : metaTs(days + 20, days + 400);
    const updated = status === 'paused' ? pausedAtMs : status === 'draft' ? created + rng.int(60, 7200) * 1000 : created + rng.int(1, 20) * DAY_MS;
    const firstMessage = tpl.firstMessage.replace('{company}', companyName);
    const hours = tpl.key === 'after_hours' ? '18:00–08:00' : 'Mon–Fri 8:00–18:00, Sat 9:00–14:00';
    const closeness = tpl.language === 'de' ? 'formal' : rng.pick(['formal', 'personal']);
    const detail: AgentDetail = {
      id: rng.uuid(),
      space: slug,
      name: tpl.name,
      description: tpl.description,
      status,
      language: tpl.language,
      voice_id: tpl.chatShare < 1 && rng.chance(0.7) ? rng.uuid() : null,
      model: rng.chance(0.3) ? null : rng.pick(LLM_OPTIONS),
      first_message: { text: firstMessage, interruptible: rng.chance(0.7) },
      tool_ids: toolIds,
      knowledge_ids: Array.from({ length: rng.int(0, 4) }, () => rng.uuid()),
      knowledge_folder_ids: Array.from({ length: rng.int(0, 2) }, () => rng.uuid()),
      phone_number_ids: tpl.chatShare < 1 ? [rng.uuid()] : [],
      sync_status: status === 'draft' ? 'draft' : 'synced',
      sync_error: null,
      last_synced_at: formatMeta(status === 'draft' ? created : updated),
      created_at: formatMeta(created),
      updated_at: formatMeta(updated),
      behavior: {
        blocks: [
          { key: 'role', type: 'role' },
          { key: 'company', type: 'company' },
          { key: 'tone', type: 'tone' },
        ],
        values: {
          role: { text: tpl.role },
          company: { name: companyName, hours },
          tone: { closeness, style: 'brief', length: 'two_three_sentences' },
        },
        rendered_prompt: renderPrompt({
          role: { text: tpl.role },
          company: { name: companyName, hours },
          tone: { closeness, style: 'brief', length: 'two_three_sentences' },
        }),
      },
      workflow,
    };
    const rt: AgentRt = { detail, tpl, wf: compiled, pausedAtMs: status === 'paused' ? pausedAtMs : null };
    if (status !== 'draft') agentRts.push(rt);
    return detail;
  });
  // List order: newest agent first.
  agents.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  const eligibleBefore = agentRts.map((a) => [a, a.tpl.weight] as const);
  const eligibleAfter = agentRts.filter((a) => a.pausedAtMs === null).map((a) => [a, a.tpl.weight] as const);

  return { space, company: companyName, domain, connections, tools, agents, pausedAtMs, eligibleBefore, eligibleAfter };
}
