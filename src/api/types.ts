// Wire types of the Agent Management API (shared/api/agent-management-api.md).
// This file is the only thing the simulator and the rest of convoduck share.
// Enum-like fields are typed as plain strings on purpose: the spec lists the values
// "seen", and a real server may send others, which convoduck must keep verbatim.

export type Iso8601 = string;
export type Uuid = string;

/** Values the spec lists; others may arrive and are stored as they are. */
export const KNOWN_OUTCOMES = ['completed', 'transferred', 'hung_up', 'failed'] as const;
export const KNOWN_CHANNELS = ['voice', 'chat'] as const;
export const AGENT_STATUSES = ['draft', 'active', 'paused'] as const;

export interface Space {
  slug: string;
  name?: string;
  llm_options: { id: string }[];
}

export interface Agent {
  id: Uuid;
  space: string;
  name: string;
  description: string | null;
  status: string;
  language: string;
  voice_id: Uuid | null;
  model: string | null;
  first_message: { text: string; interruptible: boolean };
  tool_ids: Uuid[];
  knowledge_ids: Uuid[];
  knowledge_folder_ids: Uuid[];
  phone_number_ids: unknown[];
  sync_status: string;
  sync_error: string | null;
  last_synced_at: Iso8601;
  created_at: Iso8601;
  updated_at: Iso8601;
}

export interface Workflow {
  start_node: string;
  nodes: Record<string, unknown>;
  edges: Record<string, unknown>;
}

export interface AgentDetail extends Agent {
  behavior: {
    blocks: { key: string; type: string }[];
    values: Record<string, Record<string, unknown>>;
    rendered_prompt: string;
  };
  workflow: Workflow;
}

export interface Recipe {
  kind: string;
  announce: boolean;
  announce_text: string;
  sources: Record<
    string,
    {
      method: string;
      url: string;
      params: { from: string; name: string; value: string; type: string; required: boolean }[];
    }
  >;
  output: { fields: string[]; limit: number; remember: unknown[] };
}

export interface Tool {
  id: Uuid;
  connection_id: Uuid;
  slug: string;
  name: string;
  description: string;
  recipe: Recipe;
  usage_count: number;
  sync_status: string;
  sync_error: string | null;
  created_at: Iso8601;
  updated_at: Iso8601;
}

export interface Connection {
  id: Uuid;
  name: string;
  kind: string;
  connector: string | null;
  module: string | null;
  base_url: string;
  auth_status: string;
  tool_count: number;
  created_at: Iso8601;
  updated_at: Iso8601;
}

export interface ConnectionDetail extends Connection {
  tools: { id: Uuid; slug: string; name: string }[];
}

/** A conversation as the list returns it. `summary` is absent in confidential spaces. */
export interface ConversationSummary {
  id: Uuid;
  agent_id: Uuid;
  channel: string;
  direction: string;
  session_ref: string | null;
  page_url: string | null;
  started_at: Iso8601;
  /** null while the conversation is still in progress */
  ended_at: Iso8601 | null;
  duration_sec: number | null;
  message_count: number;
  /** null while the conversation is still in progress */
  outcome: string | null;
  summary?: string | null;
}

export interface TranscriptEntry {
  at: Iso8601;
  speaker: string;
  text: string;
  node_key: string;
}

export interface ToolCallEntry {
  at: Iso8601;
  tool_id: Uuid;
  slug: string;
  node_key: string;
  status: string;
  input_redacted: unknown;
  output_redacted: unknown;
}

export interface NodePathEntry {
  at: Iso8601;
  node_key: string;
}

/** The detail. `transcript` and `recording_url` are absent in confidential spaces. */
export interface ConversationDetail extends ConversationSummary {
  transcript?: TranscriptEntry[];
  tool_calls: ToolCallEntry[];
  node_path: NodePathEntry[];
  recording_url?: string | null;
}

export interface ListMeta {
  page: number;
  per_page: number;
  total: number;
  next_page: number | null;
}

export interface ListResponse<T> {
  data: T[];
  meta: ListMeta;
}

export interface ItemResponse<T> {
  data: T;
}

export interface ErrorBody {
  code: string;
  message: string;
  [extra: string]: unknown;
}

export interface ConversationListQuery {
  agent_id?: Uuid;
  channel?: string;
  from?: Iso8601;
  to?: Iso8601;
  outcome?: string;
  page?: number;
  per_page?: number;
}

export const MAX_PER_PAGE = 200;
export const DEFAULT_PER_PAGE = 50;
