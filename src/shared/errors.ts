// Errors the library raises on purpose, each with a one-line message that says what was wrong
// and what to do. The library never decides exit codes or how a message is shown: the CLI maps
// these classes (src/cli/errors.ts); anything else that escapes is a bug.

/** A failure the caller can act on; see the subclasses. */
export abstract class ConvoduckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Something the caller passed is wrong: a name, an option's value, a path, a time. */
export class InvalidInputError extends ConvoduckError {}

/** SQL that could not run: a query's, or a report's. */
export class QueryError extends ConvoduckError {}

/** Another process held the database for longer than the caller agreed to wait, or took it mid-read. */
export class DatabaseBusyError extends ConvoduckError {}

/** The database file cannot be opened as asked: missing, not a database, or already open in this process. */
export class StoreError extends ConvoduckError {}

/** The database is there but could not be read: damaged, written by a newer convoduck, unreadable. */
export class DatabaseReadError extends ConvoduckError {}

/** DuckDB error text as one line: the message without the caret diagram that follows it. */
export function oneLineError(message: string): string {
  const head = message.split(/\n\s*\n/)[0] ?? message;
  return head
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
