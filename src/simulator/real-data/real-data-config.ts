// The real-data mode's configuration text (realData.configText): every agent, tool and connection
// served with its name cut mid-surrogate, and so are an agent's rendered prompt and its workflow
// nodes' titles. JSON.stringify writes each lone half as an escape (\ud83d, \ude00) that DuckDB's
// JSON reader refuses; what the API meant is the same text with U+FFFD in its place.

import type { AgentDetail, ConnectionDetail, Tool } from '../../api/types.js';
import { CUT_HIGH, CUT_LOW } from './real-data-text.js';

/** A name as the mode serves it: the lone high half of 😀 at its end. */
export const cutName = (name: string): string => `${name} ${CUT_HIGH}`;

export function messyAgent(a: AgentDetail): AgentDetail {
  const nodes: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(a.workflow.nodes)) {
    const titled = typeof node === 'object' && node !== null && typeof (node as { title?: unknown }).title === 'string';
    nodes[key] = titled ? { ...node, title: cutName((node as { title: string }).title) } : node;
  }
  return {
    ...a,
    name: cutName(a.name),
    behavior: { ...a.behavior, rendered_prompt: `${CUT_LOW} ${a.behavior.rendered_prompt}` },
    workflow: { ...a.workflow, nodes },
  };
}

export const messyTool = (t: Tool): Tool => ({ ...t, name: cutName(t.name) });

export const messyConnection = (c: ConnectionDetail): ConnectionDetail => ({
  ...c,
  name: cutName(c.name),
  tools: c.tools.map((t) => ({ ...t, name: cutName(t.name) })),
});
