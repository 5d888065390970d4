// How the page names agents and tools. A report row is one agent's by space and agent id, one
// tool's by space and slug; spaces often hold agents and tools of the same name (prod and staging),
// so a name alone cannot tell them apart. Charts name a thing with its space in brackets whenever
// the page holds rows of several spaces; tables show the space in a column of its own instead.
// Two of one name in the same space are told apart by their id (agent) or slug (tool).

import type { ReportRows, Row } from '../rows.js';

export interface PageNames {
  /** the spaces the page's rows come from, sorted; with more than one, every label names its space */
  spaces: string[];
  /** the agent's name (with its id when its space has another agent of that name) */
  agentName(row: Row): string;
  /** agentName, with the space when the page holds several: what charts draw */
  agent(row: Row): string;
  /** the tool's name (with its slug when its space has another tool of that name) */
  toolName(row: Row): string;
  /** toolName, with the space when the page holds several */
  tool(row: Row): string;
}

function text(cell: unknown): string {
  return cell === null || cell === undefined ? '' : String(cell);
}

/** Identity of the agent a row is about: its space and id, never its name. */
export function agentKey(row: Row): string {
  return JSON.stringify([row.space ?? null, row.agent_id ?? null]);
}

/** Identity of the tool a row is about: its space and slug. */
export function toolKey(row: Row): string {
  return JSON.stringify([row.space ?? null, row.slug ?? null]);
}

const agentBase = (row: Row) => text(row.agent_name) || text(row.agent_id) || '(no agent)';
const toolBase = (row: Row) => text(row.tool_name) || text(row.slug) || '(no slug)';

/**
 * The keys whose name another key of the same space shares: those are named with their id.
 * Rows without a name (an agent the agents table does not know) are named by their id already.
 */
function clashes(rows: Row[], key: (r: Row) => string, base: (r: Row) => string): Set<string> {
  const keysOf = new Map<string, Set<string>>();
  for (const row of rows) {
    const name = JSON.stringify([row.space ?? null, base(row)]);
    const keys = keysOf.get(name) ?? new Set<string>();
    keys.add(key(row));
    keysOf.set(name, keys);
  }
  return new Set([...keysOf.values()].filter((keys) => keys.size > 1).flatMap((keys) => [...keys]));
}

/**
 * The names for one page, from the rows of the reports it shows: `agentRows` every report row
 * that is one agent's, `toolRows` every one that is one tool's.
 */
export function pageNames(agentRows: readonly ReportRows[], toolRows: readonly ReportRows[]): PageNames {
  const agents = agentRows.flatMap((t) => t.rows);
  const tools = toolRows.flatMap((t) => t.rows);
  const spaces = [...new Set([...agents, ...tools].map((r) => r.space).filter((s): s is string => typeof s === 'string' && s !== ''))].sort();
  const spaced = spaces.length > 1;
  const withSpace = (label: string, row: Row) => (spaced && typeof row.space === 'string' ? `${label} (${row.space})` : label);
  const sameAgentName = clashes(agents, agentKey, agentBase);
  const sameToolName = clashes(tools, toolKey, toolBase);
  const agentName = (row: Row) => (sameAgentName.has(agentKey(row)) ? `${agentBase(row)} [${text(row.agent_id)}]` : agentBase(row));
  const toolName = (row: Row) => (sameToolName.has(toolKey(row)) ? `${toolBase(row)} [${text(row.slug)}]` : toolBase(row));
  return {
    spaces,
    agentName,
    agent: (row) => withSpace(agentName(row), row),
    toolName,
    tool: (row) => withSpace(toolName(row), row),
  };
}
