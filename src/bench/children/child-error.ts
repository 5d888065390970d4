// How a benchmark child reports its failure, and how the parent turns that into one error whose
// message comes first: a stack's last lines alone (what a tail of stderr shows) never say what broke.

/** The line that opens a child's failure report on stderr; the message follows it, then the stack. */
const MARK = '::child-failed::';

/**
 * Writes `err` to stderr as the child's last words: the message (every line of it) with `context`
 * (what the child was doing), then the stack frames.
 */
export function reportChildFailure(child: string, err: unknown, context?: string): void {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const frames = err instanceof Error && err.stack ? err.stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
  process.stderr.write(`${MARK} ${child}${context ? ` (${context})` : ''}: ${message}\n${frames.join('\n')}\n`);
}

/**
 * The error a parent throws for a child that exited with `code` or was killed by `signal`: the
 * child's own message first (or, without one, what the child printed last, e.g. V8's out-of-memory
 * lines), then the innermost stack frames.
 */
export function childFailure(what: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): Error {
  const how = signal ? `was killed by ${signal}` : `exited ${code}`;
  const lines = stderr.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.startsWith(MARK));
  if (at === -1) {
    const tail = lines.filter((l) => l.trim() !== '').slice(-8).join(' | ');
    return new Error(`${what} ${how}${tail ? `: ${tail}` : ' without a word on stderr'}`);
  }
  const report = lines.slice(at);
  const frames = report.filter((l) => /^\s+at /.test(l));
  const message = report
    .filter((l) => !/^\s+at /.test(l))
    .join('\n')
    .slice(MARK.length + 1);
  return new Error(`${what} ${how}: ${message}${frames.length > 0 ? `\n${frames.slice(0, 6).join('\n')}` : ''}`);
}
