// How a long raw body is kept: in parts of a few thousand characters (raw_conversation_parts).

/**
 * A body of up to INLINE_BODY_CHARS characters is kept in one value; a longer one in parts of
 * BODY_PART_CHARS (raw_conversation_parts). DuckDB reads a column 2,048 values at a time, and a
 * checkpoint re-reads the row group it merges: parts this small keep what it holds at once small.
 */
export const INLINE_BODY_CHARS = 65_536;
export const BODY_PART_CHARS = 4_096;

/** `text` in parts of at most `size` characters, never splitting a surrogate pair. */
export function splitText(text: string, size = BODY_PART_CHARS): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
