// Progress of a run over several spaces: on a terminal a block of lines, one per space, redrawn
// in place; in a log, each space's line (progress.ts's) prefixed with its slug, at least every 5 s.

import type { SyncProgress } from '../../crawler/sync.js';
import { cut, progressLine, describeParts, fitParts } from './progress.js';

const LOG_EVERY_MS = 4_750;
const REDRAW_EVERY_MS = 200;

export function spacesProgressPrinter(stream: NodeJS.WriteStream = process.stderr): {
  update: (space: string, p: SyncProgress) => void;
  /** a line of its own: on a terminal it goes above the block, which is drawn again below it */
  say: (line: string) => void;
  finish: () => void;
} {
  const tty = stream.isTTY === true;
  const latest = new Map<string, SyncProgress>();
  const lastLog = new Map<string, { at: number; phase: string }>();
  let drawnLines = 0;
  let lastDraw = 0;
  let lastPhases = '';

  const draw = (): void => {
    const width = (stream.columns || 80) - 1;
    const label = Math.min(Math.max(...[...latest.keys()].map((s) => s.length)), Math.floor(width / 3));
    let out = drawnLines > 0 ? `\x1b[${drawnLines}A` : '';
    for (const [space, p] of latest) {
      const name = cut(space, label).padEnd(label);
      out += `\r\x1b[2K${name} ${fitParts(describeParts(p, true), width - label - 1)}\n`;
    }
    stream.write(out);
    drawnLines = latest.size;
  };

  const clear = (): void => {
    if (tty && drawnLines > 0) {
      stream.write(`\x1b[${drawnLines}A${'\r\x1b[2K\n'.repeat(drawnLines)}\x1b[${drawnLines}A`);
    }
    drawnLines = 0;
  };

  return {
    update(space, p) {
      const now = Date.now();
      if (tty) {
        latest.set(space, p);
        // a space that changes phase is drawn at once; otherwise the block is redrawn at most 5 times a second
        const phases = [...latest.values()].map((q) => q.phase).join(',');
        if (phases === lastPhases && now - lastDraw < REDRAW_EVERY_MS) return;
        lastPhases = phases;
        lastDraw = now;
        draw();
        return;
      }
      const last = lastLog.get(space);
      if (last && last.phase === p.phase && now - last.at < LOG_EVERY_MS) return;
      lastLog.set(space, { at: now, phase: p.phase });
      if (p.phase !== 'done') stream.write(`${new Date(now).toISOString()} ${space}: ${progressLine(p)}\n`);
    },
    say(line) {
      clear();
      stream.write(`${line}\n`);
      if (tty && latest.size > 0) draw();
    },
    finish: clear,
  };
}
