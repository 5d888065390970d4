// An edit of an agent between runs, as Update agent (and publishing) leaves it on the platform:
// the sent fields change (behavior.values merged per block, lists replaced), updated_at moves to
// the edit's time, and a published edit moves last_synced_at too. The conversations keep being
// generated from the agent's original flow: only what the agent endpoints serve changes.

import type { AgentDetail } from '../../api/types.js';
import { formatMeta } from './dataset-format.js';

export interface AgentEdit {
  name?: string;
  description?: string | null;
  first_message?: { text: string; interruptible: boolean };
  /** merged per block, as Update agent does; rendered_prompt follows the new values */
  behavior?: { values: Record<string, Record<string, unknown>> };
  /** the flow as the platform edited it; `null` or `{}` for an agent without one */
  workflow?: unknown;
  tool_ids?: string[];
  knowledge_ids?: string[];
  knowledge_folder_ids?: string[];
  status?: 'active' | 'paused';
  /** when the edit was made (default: the simulated now); whole seconds, like every agent time */
  at?: Date;
  /** published with the edit (default true); false leaves sync_status `draft` and last_synced_at as it was */
  publish?: boolean;
}

/** The prompt the platform builds from the behavior blocks (read-only in the API). */
export function renderPrompt(values: Record<string, Record<string, unknown>>): string {
  const role = values.role ?? {};
  const company = values.company ?? {};
  const tone = values.tone ?? {};
  const length = tone.length === 'two_three_sentences' ? 'two to three sentences' : String(tone.length);
  return (
    `# Role\n${String(role.text)}\n\n# Company\n${String(company.name)}, opening hours: ${String(company.hours)}` +
    `\n\n# Tone\n${String(tone.closeness)}, ${String(tone.style)}, ${length}.`
  );
}

/** Applies `edit` to the agent in place (what the agent endpoints serve from then on). */
export function applyAgentEdit(agent: AgentDetail, edit: AgentEdit, now: Date): void {
  const atMs = Math.floor((edit.at ?? now).getTime() / 1000) * 1000;
  if (!Number.isFinite(atMs)) throw new Error('editAgent: invalid date');
  if (edit.name !== undefined) agent.name = edit.name;
  if (edit.description !== undefined) agent.description = edit.description;
  if (edit.first_message !== undefined) agent.first_message = { ...edit.first_message };
  if (edit.behavior !== undefined) {
    const values = { ...agent.behavior.values };
    for (const [block, value] of Object.entries(edit.behavior.values)) values[block] = { ...values[block], ...value };
    agent.behavior = { ...agent.behavior, values, rendered_prompt: renderPrompt(values) };
  }
  if (edit.workflow !== undefined) (agent as { workflow: unknown }).workflow = edit.workflow;
  if (edit.tool_ids !== undefined) agent.tool_ids = [...edit.tool_ids];
  if (edit.knowledge_ids !== undefined) agent.knowledge_ids = [...edit.knowledge_ids];
  if (edit.knowledge_folder_ids !== undefined) agent.knowledge_folder_ids = [...edit.knowledge_folder_ids];
  if (edit.status !== undefined) agent.status = edit.status;
  agent.updated_at = formatMeta(atMs);
  if (edit.publish ?? true) {
    agent.sync_status = 'synced';
    agent.last_synced_at = formatMeta(atMs);
  } else {
    agent.sync_status = 'draft';
  }
}
