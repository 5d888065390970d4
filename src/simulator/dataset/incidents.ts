// Incidents planted in a generated history, for the alert rules to find: a connection whose tool
// calls all fail for some hours of one day, a day with a fraction of the usual volume, and one
// agent whose transfers jump from a day on. Days are counted back from the history's end: day 1 is
// the UTC day before the one `now` falls in.

import type { AgentRt } from './space-setup.js';

export interface IncidentOptions {
  /** every tool call through one connection fails (http_500) for `hours` from `fromHour` UTC */
  toolOutage?: { daysAgo: number; fromHour?: number; hours?: number; connection?: string };
  /** only `fraction` of that day's conversations happen */
  quietDay?: { daysAgo: number; fraction?: number };
  /** from that day on, a share `rate` of the agent's conversations are transferred to a human */
  transferJump?: { daysAgo: number; rate?: number; agent?: string };
}

/** The incidents as instants and ids (what the skeletons and the history read). */
export interface PlantedIncidents {
  toolOutage: { connectionId: string; fromMs: number; toMs: number } | null;
  quietDay: { fromMs: number; toMs: number; fraction: number } | null;
  transferJump: { agentId: string; fromMs: number; rate: number } | null;
}

export const NO_INCIDENTS: PlantedIncidents = { toolOutage: null, quietDay: null, transferJump: null };

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

interface Space {
  connections: readonly { id: string; name: string }[];
  tools: readonly { connection_id: string }[];
  eligible: readonly (readonly [AgentRt, number])[];
}

/** Resolves the options against the space: the default connection has the most tools, the default agent takes the most conversations and can transfer. */
export function planIncidents(options: IncidentOptions | undefined, nowMs: number, space: Space): PlantedIncidents {
  if (!options) return NO_INCIDENTS;
  const today = nowMs - (nowMs % DAY_MS);
  const dayStart = (daysAgo: number) => {
    if (!Number.isInteger(daysAgo) || daysAgo < 1) throw new Error(`incident daysAgo must be a whole number ≥ 1, not ${daysAgo}`);
    return today - daysAgo * DAY_MS;
  };
  const planted: PlantedIncidents = { ...NO_INCIDENTS };
  if (options.toolOutage) {
    const o = options.toolOutage;
    const byTools = [...space.connections].sort((a, b) => count(space.tools, b.id) - count(space.tools, a.id));
    const connection = o.connection === undefined ? byTools[0] : space.connections.find((c) => c.id === o.connection || c.name === o.connection);
    if (!connection) throw new Error(`incident toolOutage: no connection ${o.connection}`);
    const fromMs = dayStart(o.daysAgo) + (o.fromHour ?? 8) * HOUR_MS;
    planted.toolOutage = { connectionId: connection.id, fromMs, toMs: fromMs + (o.hours ?? 8) * HOUR_MS };
  }
  if (options.quietDay) {
    const fromMs = dayStart(options.quietDay.daysAgo);
    planted.quietDay = { fromMs, toMs: fromMs + DAY_MS, fraction: options.quietDay.fraction ?? 0.2 };
  }
  if (options.transferJump) {
    const o = options.transferJump;
    const canTransfer = space.eligible.filter(([a]) => a.wf.distTransfer.has(a.wf.start)).sort((a, b) => b[1] - a[1]);
    const agent = o.agent === undefined ? canTransfer[0]?.[0] : space.eligible.map(([a]) => a).find((a) => a.detail.id === o.agent || a.detail.name === o.agent);
    if (!agent) throw new Error(`incident transferJump: no agent ${o.agent ?? 'that can transfer'}`);
    planted.transferJump = { agentId: agent.detail.id, fromMs: dayStart(o.daysAgo), rate: o.rate ?? 0.8 };
  }
  return planted;
}

function count(tools: Space['tools'], connectionId: string): number {
  return tools.filter((t) => t.connection_id === connectionId).length;
}
