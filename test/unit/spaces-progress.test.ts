// The progress of a run over several spaces: a block of lines redrawn in place on a terminal (one
// per space, each fitting the width), and log lines prefixed with the space's slug.
import { describe, expect, it } from 'vitest';
import type { SyncProgress } from '../../src/crawler/sync.js';
import { columnsOf } from '../../src/cli/sync/progress.js';
import { spacesProgressPrinter } from '../../src/cli/sync/spaces-progress.js';

function stream(isTTY: boolean, columns = 60): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, columns, text: '', write: (chunk: string) => ((s.text += chunk), true) };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

function progress(phase: SyncProgress['phase'], detailsDone = 0): SyncProgress {
  return {
    phase,
    listed: 120,
    listTotal: 120,
    detailsDone,
    detailsTotal: 120,
    requests: 40 + detailsDone,
    throttled: 0,
    errors: 0,
    startedAt: new Date('2026-11-23T13:00:00Z'),
    window: { from: null, to: '2026-11-23T13:00:00.000Z' },
    rate: { inWindow: 30, budget: 59, windowMs: 60_000 },
    requestsLeft: 120 - detailsDone,
    waiting: null,
  };
}

describe('spacesProgressPrinter', () => {
  it('on a terminal: one line per space, redrawn in place, each within the width, erased at the end', () => {
    const out = stream(true, 60);
    const printer = spacesProgressPrinter(out);
    printer.update('acme-prod', progress('listing'));
    printer.update('acme-staging', progress('listing'));
    printer.update('acme-prod', progress('details', 10));
    const redraws = out.text.split('\r\x1b[2K').slice(1);
    expect(redraws.length).toBeGreaterThanOrEqual(4);
    for (const line of redraws) {
      const text = line.replace(/\n(\x1b\[\d+A)?$/, '').replace(/\n$/, '');
      expect(columnsOf(text), text).toBeLessThanOrEqual(59);
    }
    // the last drawing shows both spaces, each on its own line, the block redrawn from its top
    const last = out.text.slice(out.text.lastIndexOf('\x1b[2A') + '\x1b[2A'.length).split('\n').filter(Boolean);
    expect(last).toHaveLength(2);
    expect(last[0]).toMatch(/^\r\x1b\[2Kacme-prod {4}details 10\/120/);
    expect(last[1]).toMatch(/^\r\x1b\[2Kacme-staging listing/);
    printer.finish();
    expect(out.text.endsWith(`\x1b[2A${'\r\x1b[2K\n'.repeat(2)}\x1b[2A`)).toBe(true);
  });

  it('a note, even through a detached say, clears the block, goes above it, and the block is drawn again below', () => {
    const out = stream(true, 60);
    const printer = spacesProgressPrinter(out);
    const say = printer.say;
    printer.update('acme-prod', progress('details', 10));
    printer.update('acme-staging', progress('listing'));
    const before = out.text.length;
    say('recordings of acme-prod: 12 owed by earlier runs');
    const after = out.text.slice(before);
    expect(after.startsWith(`\x1b[2A${'\r\x1b[2K\n'.repeat(2)}\x1b[2Arecordings of acme-prod: 12 owed by earlier runs\n`)).toBe(true);
    expect(after).toMatch(/\r\x1b\[2Kacme-prod {4}details 10\/120.*\n\r\x1b\[2Kacme-staging listing.*\n$/);
  });

  it('in a log: each line names its space; a space’s line at most every 5 s unless its phase changes', () => {
    const out = stream(false);
    const printer = spacesProgressPrinter(out);
    printer.update('acme-prod', progress('listing'));
    printer.update('acme-staging', progress('listing'));
    printer.update('acme-prod', progress('listing'));
    printer.update('acme-prod', progress('details', 5));
    printer.update('acme-prod', progress('done', 120));
    const lines = out.text.trimEnd().split('\n');
    expect(lines.map((l) => l.replace(/^\S+Z /, '').replace(/:.*$/, ''))).toEqual(['acme-prod', 'acme-staging', 'acme-prod']);
    expect(lines[2]).toMatch(/^\S+Z acme-prod: details 5\/120 · listed 120\/120/);
    expect(out.text).not.toContain('\x1b');
  });
});
