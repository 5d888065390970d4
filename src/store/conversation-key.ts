// Each conversation's id as a 16-byte UUID, stored beside it in the conversation and child tables:
// reports join millions of turns and visits to their conversations, and comparing 16 bytes is far
// cheaper than comparing 36 characters.

/**
 * SQL: the conversation_key of the conversation id `id`. The spec's ids are UUIDs: an id in
 * DuckDB's canonical text of a UUID (lower case, hyphens) is that UUID. Any other id, which
 * the same cast would map onto a canonical one (upper case, braces, no hyphens) or refuse, gets
 * the UUID of its MD5, so that two different ids never share a key.
 */
export function conversationKeySql(id: string): string {
  return `CASE WHEN try_cast(${id} AS UUID)::VARCHAR = ${id} THEN try_cast(${id} AS UUID) ELSE md5(${id})::UUID END`;
}
