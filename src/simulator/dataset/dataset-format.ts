// How the generated dataset writes its values: conversation timestamps (formatTs, whole seconds
// or milliseconds, `Z` or a local offset), agent/tool/connection timestamps (`+00:00`), and
// flat strings for what stays in memory.

const DAY_MS = 86_400_000;
const dayPrefixCache = new Map<number, string>();

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** 'YYYY-MM-DDTHH:MM:SS' of a UTC instant (whole seconds), with a per-day cache (hot path). */
function isoSeconds(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixCache.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayPrefixCache.size > 20_000) dayPrefixCache.clear();
    dayPrefixCache.set(day, prefix);
  }
  const secOfDay = Math.floor((ms - day * DAY_MS) / 1000);
  const h = Math.floor(secOfDay / 3600);
  const m = Math.floor((secOfDay % 3600) / 60);
  return `${prefix}${two(h)}:${two(m)}:${two(secOfDay % 60)}`;
}

/** 'YYYY-MM-DDTHH:MM:SS', plus '.mmm' when the instant is not a whole second. */
function isoLocal(ms: number): string {
  const millis = ms - Math.floor(ms / 1000) * 1000;
  return millis === 0 ? isoSeconds(ms) : `${isoSeconds(ms)}.${String(millis).padStart(3, '0')}`;
}

/** ISO 8601 (seconds, or milliseconds when the instant has them): `Z` for offset 0, else local time with `+hh:mm`/`-hh:mm`. */
export function formatTs(ms: number, tzMin = 0): string {
  if (tzMin === 0) return `${isoLocal(ms)}Z`;
  const local = isoLocal(ms + tzMin * 60_000);
  const sign = tzMin < 0 ? '-' : '+';
  const abs = Math.abs(tzMin);
  return `${local}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** Agent, tool and connection timestamps: whole seconds with `+00:00`. */
export function formatMeta(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '+00:00';
}

/**
 * A flat copy of a string. Concatenation builds rope ("cons") strings that cost ~4x the
 * memory of a flat one; summaries of 100k+ conversations stay in memory, so flatten those.
 */
export function flat<T extends string | null>(s: T): T {
  return (s === null ? s : JSON.parse(JSON.stringify(s))) as T;
}

/** `value`, or an error naming what the static catalog is missing. */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`simulator: missing ${what}`);
  return value;
}
