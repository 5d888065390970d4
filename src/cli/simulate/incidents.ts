// `simulate --incident KIND:DAYS_AGO`: incidents planted in the history for alert rules to find
// (src/simulator/dataset/incidents.ts), each on the UTC day that many days before today.

import type { IncidentOptions } from '../../simulator/dataset/incidents.js';
import { UsageError } from '../errors.js';

export const INCIDENT_KINDS = ['tool-outage', 'quiet-day', 'transfer-jump'] as const;

export function parseIncidentFlags(values: readonly string[] | undefined): IncidentOptions | undefined {
  if (!values || values.length === 0) return undefined;
  const incidents: IncidentOptions = {};
  for (const value of values) {
    const match = /^([a-z-]+):(\d+)$/.exec(value.trim());
    const kind = match?.[1];
    const daysAgo = Number(match?.[2]);
    if (!match || !(INCIDENT_KINDS as readonly string[]).includes(kind!) || daysAgo < 1) {
      throw new UsageError(`--incident ${JSON.stringify(value)} is not an incident — use KIND:DAYS_AGO with KIND one of ${INCIDENT_KINDS.join(', ')}, e.g. tool-outage:5`);
    }
    if (kind === 'tool-outage') incidents.toolOutage = { daysAgo };
    else if (kind === 'quiet-day') incidents.quietDay = { daysAgo };
    else incidents.transferJump = { daysAgo };
  }
  return incidents;
}
