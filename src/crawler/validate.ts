// Pure checks of a detail response: a body that parses as JSON but is not a usable
// conversation is kept raw, recorded as an error, and fetched again by the next run.

const MAX_DEPTH = 64;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function isOptionalInt(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'number' && Number.isInteger(value));
}

function depth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (limit <= 0) return Infinity;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depth(child, limit - 1));
    if (deepest === Infinity) break;
  }
  return deepest + 1;
}

/** DuckDB's JSON reader refuses very deep nesting, so such a body cannot even be kept raw. */
export function nestsTooDeep(body: unknown): boolean {
  return depth(body, MAX_DEPTH) === Infinity;
}

/** Why `body` is not a usable detail of conversation `id`, or null when it is. */
export function detailProblem(body: unknown, id: string): string | null {
  if (!isObject(body) || !isObject(body.data)) return 'body has no `data` object';
  const c = body.data;
  if (c.id !== id) return `data.id is ${JSON.stringify(c.id)}, expected ${id}`;
  if (!isTime(c.started_at)) return 'started_at is not an ISO 8601 date-time';
  if (c.ended_at !== null && c.ended_at !== undefined && !isTime(c.ended_at)) return 'ended_at is not an ISO 8601 date-time';
  for (const field of ['agent_id', 'channel', 'direction', 'outcome', 'summary', 'session_ref', 'page_url']) {
    if (!isOptionalString(c[field])) return `${field} is not a string`;
  }
  for (const field of ['duration_sec', 'message_count']) {
    if (!isOptionalInt(c[field])) return `${field} is not an integer`;
  }
  const lists: [string, string[]][] = [
    ['transcript', ['speaker', 'text', 'node_key']],
    ['tool_calls', ['tool_id', 'slug', 'node_key', 'status']],
    ['node_path', ['node_key']],
  ];
  for (const [field, strings] of lists) {
    const list = c[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return `${field} is not an array`;
    for (let i = 0; i < list.length; i++) {
      const entry: unknown = list[i];
      if (!isObject(entry)) return `${field}[${i}] is not an object`;
      if (!isTime(entry.at)) return `${field}[${i}].at is not an ISO 8601 date-time`;
      for (const key of strings) if (!isOptionalString(entry[key])) return `${field}[${i}].${key} is not a string`;
    }
  }
  return null;
}
