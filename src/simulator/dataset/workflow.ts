// An agent's workflow: the graph built from its template (nodes, edges, tool ids as the API
// shows them), a compiled form with each node's distance to the nearest end, transfer and
// tool node, and the seeded walk a conversation takes through it.
// Nodes are `{type, title, tool_ids?}` with type one of greeting, conversation, tool,
// knowledge, transfer, end; edges map node_key -> next node_keys ([] for terminals).

import type { Tool, Workflow } from '../../api/types.js';
import { must } from './dataset-format.js';
import type { Rng } from '../random.js';
import { NODE_LIBRARY, type AgentTemplate, type NodeType, type ToolDef } from './space-catalog.js';

/** A tool as defined in the catalog and as generated for this space. */
export interface ToolRt {
  def: ToolDef;
  tool: Tool;
}

export interface CompiledWorkflow {
  start: string;
  type: Map<string, NodeType>;
  next: Map<string, string[]>;
  tools: Map<string, ToolRt[]>;
  distEnd: Map<string, number>;
  distTransfer: Map<string, number>;
  distTool: Map<string, number>;
}

/** Reverse BFS: distance from every node to the nearest target. */
function distances(next: Map<string, string[]>, targets: (key: string) => boolean): Map<string, number> {
  const prev = new Map<string, string[]>();
  for (const [from, tos] of next) {
    for (const to of tos) {
      const list = prev.get(to) ?? [];
      list.push(from);
      prev.set(to, list);
    }
  }
  const dist = new Map<string, number>();
  const queue: string[] = [];
  for (const key of next.keys()) {
    if (targets(key)) {
      dist.set(key, 0);
      queue.push(key);
    }
  }
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    const d = dist.get(node)!;
    for (const p of prev.get(node) ?? []) {
      if (!dist.has(p)) {
        dist.set(p, d + 1);
        queue.push(p);
      }
    }
  }
  return dist;
}

export function buildWorkflow(
  tpl: AgentTemplate,
  toolsBySlug: Map<string, ToolRt>,
  rng: Rng,
): { workflow: Workflow; compiled: CompiledWorkflow; toolIds: string[] } {
  const keys: string[] = ['greeting'];
  if (tpl.identify) keys.push('identify_caller');
  keys.push('route_intent', ...tpl.intents, 'anything_else');
  if (tpl.transfer) keys.push('transfer_to_human');
  keys.push('end');

  const next = new Map<string, string[]>();
  const exits = tpl.transfer ? ['transfer_to_human', 'end'] : ['end'];
  next.set('greeting', [tpl.identify ? 'identify_caller' : 'route_intent']);
  if (tpl.identify) next.set('identify_caller', tpl.transfer ? ['route_intent', 'transfer_to_human'] : ['route_intent']);
  next.set('route_intent', [...tpl.intents, ...exits]);
  for (const intent of tpl.intents) next.set(intent, ['anything_else', ...exits]);
  next.set('anything_else', ['route_intent', 'end']);
  if (tpl.transfer) next.set('transfer_to_human', []);
  next.set('end', []);

  const type = new Map<string, NodeType>();
  const tools = new Map<string, ToolRt[]>();
  const nodes: Record<string, unknown> = {};
  const toolIds = new Set<string>();
  for (const key of keys) {
    const def = must(NODE_LIBRARY[key], `node ${key}`);
    type.set(key, def.type);
    const rts = (def.tools ?? []).map((slug) => must(toolsBySlug.get(slug), `tool ${slug}`));
    tools.set(key, rts);
    for (const rt of rts) toolIds.add(rt.tool.id);
    const node: Record<string, unknown> = { type: def.type, title: def.title };
    if (rts.length > 0) node.tool_ids = rts.map((rt) => rt.tool.id);
    if (def.type === 'transfer') node.phone_number = `+41 44 ${rng.int(200, 899)} ${rng.int(10, 99)} ${rng.int(10, 99)}`;
    if (def.type === 'knowledge') node.knowledge_scope = 'all';
    nodes[key] = node;
  }
  const edges: Record<string, unknown> = {};
  for (const key of keys) edges[key] = [...(next.get(key) ?? [])];

  const compiled: CompiledWorkflow = {
    start: 'greeting',
    type,
    next,
    tools,
    distEnd: distances(next, (k) => type.get(k) === 'end'),
    distTransfer: distances(next, (k) => type.get(k) === 'transfer'),
    distTool: distances(next, (k) => type.get(k) === 'tool'),
  };
  return { workflow: { start_node: 'greeting', nodes, edges }, compiled, toolIds: [...toolIds] };
}

function isTerminal(wf: CompiledWorkflow, key: string): boolean {
  const t = wf.type.get(key);
  return t === 'end' || t === 'transfer';
}

/**
 * Walks the workflow from its start. `mode` says where the walk must stop:
 * end: at the end node; transfer: at a transfer node; tool: at a tool node (no terminal);
 * wander: anywhere before a terminal (hung up).
 */
export function walk(wf: CompiledWorkflow, mode: 'end' | 'transfer' | 'tool' | 'wander', rng: Rng): string[] {
  const dist = mode === 'end' ? wf.distEnd : mode === 'transfer' ? wf.distTransfer : mode === 'tool' ? wf.distTool : null;
  const wander = mode === 'wander' ? rng.int(1, 5) : rng.int(1, 4);
  const path = [wf.start];
  let cur = wf.start;
  for (let step = 0; step < 24; step++) {
    if (dist && dist.get(cur) === 0 && (isTerminal(wf, cur) || step >= wander)) break;
    if (!dist && step >= wander) break;
    let cands = (wf.next.get(cur) ?? []).filter((n) => (mode === 'end' || mode === 'transfer' ? true : !isTerminal(wf, n)));
    if (dist) cands = cands.filter((n) => dist.has(n));
    if (cands.length === 0) break;
    let chosen: string;
    if (step < wander || !dist) {
      chosen = rng.weighted(cands.map((c) => [c, isTerminal(wf, c) ? 0.25 : c === 'anything_else' ? 0.5 : 1] as const));
    } else {
      let best = Infinity;
      for (const c of cands) best = Math.min(best, dist.get(c)!);
      chosen = rng.pick(cands.filter((c) => dist.get(c) === best));
    }
    path.push(chosen);
    cur = chosen;
  }
  return path;
}
