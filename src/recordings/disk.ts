// Where a recording's bytes go: the disk under the recordings folder (its free space, a file
// stream). A failing disk can stand in for it, so that tests reach every error of the write path
// (a full disk, EIO, EPIPE, a stream destroyed mid-file) on any machine.

import { createWriteStream, readdirSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';

export interface RecordingDisk {
  /** room left on the disk holding `dir` (bytes), or null when it cannot be read */
  freeBytes(dir: string): Promise<number | null>;
  /** a stream writing `file` (created or truncated) */
  open(file: string): Writable;
}

export const realDisk: RecordingDisk = {
  async freeBytes(dir) {
    try {
      const s = await statfs(dir);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  },
  open: (file) => createWriteStream(file),
};

/** How a failing disk fails: as small as `sizeBytes` (ENOSPC past it), or every file half-way into its first chunk. */
export interface DiskFault {
  sizeBytes?: number;
  /**
   * half-way into the file's first chunk: an errno code (EIO, EPIPE, ENOSPC, …) its stream fails with,
   * `destroy` (the stream ends without an error), `throw` (its write throws), or `each`: one of
   * FILE_FAULTS by the file's name (fileFault), so that one run meets them all
   */
  failWith?: string;
}

/** `size=BYTES` or `fail=CODE` (comma-separated): the fault of a failing disk; null when the text is none. */
export function parseDiskFault(text: string): DiskFault | null {
  const fault: DiskFault = {};
  for (const part of text.split(',')) {
    const m = /^\s*(size|fail)=([A-Za-z0-9]+)\s*$/.exec(part);
    if (!m) return null;
    if (m[1] === 'size' && /^\d+$/.test(m[2]!)) fault.sizeBytes = Number(m[2]);
    else if (m[1] === 'fail') fault.failWith = m[2]!;
    else return null;
  }
  return fault;
}

/** The real disk, failing as `fault` says; as small as `sizeBytes`, the files under `root` all it holds. */
export function failingDisk(fault: DiskFault, root: string): RecordingDisk {
  return {
    async freeBytes(dir) {
      const real = await realDisk.freeBytes(dir);
      if (fault.sizeBytes === undefined) return real;
      return Math.max(0, Math.min(real ?? Infinity, fault.sizeBytes - bytesUnder(root)));
    },
    open(file) {
      const inner = realDisk.open(file);
      const failWith = fault.failWith === 'each' ? fileFault(file) : fault.failWith;
      const outer = new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (failWith !== undefined) {
            // half of the first chunk reaches the file, then it fails: a file cut mid-way
            if (failWith === 'throw') throw new Error('a fault thrown by the file stream');
            return void inner.write(chunk.subarray(0, chunk.length >> 1), () => {
              if (failWith === 'destroy') outer.destroy();
              else done(errnoError(failWith, file));
            });
          }
          if (fault.sizeBytes !== undefined && bytesUnder(root) + chunk.length > fault.sizeBytes) return done(errnoError('ENOSPC', file));
          inner.write(chunk, done);
        },
        final(done) {
          inner.end(done);
        },
        destroy(err, done) {
          inner.destroy();
          done(err);
        },
      });
      inner.on('error', (err) => outer.destroy(err));
      return outer;
    },
  };
}

export const FILE_FAULTS = ['EIO', 'EPIPE', 'ENOSPC', 'destroy', 'throw'] as const;

/** The fault of `fail=each` for a file: drawn from its name (the conversation id), the same on every try. */
export function fileFault(file: string): (typeof FILE_FAULTS)[number] {
  const name = path.basename(file);
  const h = [...name].reduce((a, c) => (Math.imul(a, 31) + c.charCodeAt(0)) >>> 0, 7);
  return FILE_FAULTS[h % FILE_FAULTS.length]!;
}

/** What the files under `root` hold (bytes written so far included). */
function bytesUnder(root: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (e.isFile()) total += statSync(path.join(e.parentPath, e.name), { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    // no folder yet: nothing written
  }
  return total;
}

function errnoError(code: string, file: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: write failed (a failing disk), write`);
  err.path = file;
  err.code = code;
  err.syscall = 'write';
  return err;
}
