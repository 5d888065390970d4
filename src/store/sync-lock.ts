// One sync per database. DuckDB's own lock cannot serve: the sync releases the file between
// batches so that readers get in, so a second sync would get in too.
//
// The lock file names its holder's host and pid and a heartbeat counter the holder advances every
// few seconds (the file rewritten whole and renamed into place). Where the holder's pid means
// something (the same kernel boot and pid namespace) a dead pid frees it; anywhere else (pods of
// one job on a shared volume, even a replaced pod with its predecessor's hostname and pid) the lock
// is stale only once its counter has not moved for a lease, watched with this process's own
// monotonic clock: no two machines' clocks are ever compared.

import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

export class SyncLockedError extends Error {
  constructor(
    readonly pid: number,
    readonly lockPath: string,
    /** how long the caller waited for the lock before giving up (0: it did not wait) */
    readonly waitedMs = 0,
    /** the holder's host when it is not this one */
    readonly host: string | null = null,
  ) {
    super(
      `another convoduck sync (${holderName(pid, host)}) is already writing this database: wait for it to finish ` +
        `(or, if no such process exists, delete ${lockPath})`,
    );
    this.name = 'SyncLockedError';
  }
}

/** `pid 4711`, or `pid 4711 on host pod-2` for a holder on another host. */
export function holderName(pid: number, host: string | null): string {
  return host === null ? `pid ${pid}` : `pid ${pid} on host ${host}`;
}

/** What a lock file says of its holder. */
export interface LockHolder {
  /** os.hostname(), for people: pods of one Indexed Job index share it */
  host: string;
  /** where `pid` means something: the kernel's boot id and the pid namespace */
  machine: string;
  pid: number;
  /** one per acquisition: tells a taken-over lock from the one this process wrote */
  token: string;
  /** advanced by the holder every heartbeat */
  beat: number;
}

export interface SyncLock {
  release(): void;
  /** aborted when another process took the lock over (this holder stalled beyond the lease) */
  readonly lost: AbortSignal;
}

export interface LockTiming {
  /** a lock of another host whose heartbeat has not moved for this long is taken over (default 60 s) */
  leaseMs?: number;
}

export const DEFAULT_LEASE_MS = 60_000;

/** The holder advances its heartbeat this often: several beats fit in a lease. */
function beatEveryMs(leaseMs: number): number {
  return Math.max(50, Math.min(5_000, Math.floor(leaseMs / 6)));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** A killed sync whose parent has not reaped it yet still answers kill(pid, 0), but holds nothing. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

const THIS_HOST = hostname();
const THIS_MACHINE = machineId();

/** The boot id and pid namespace (Linux); elsewhere the hostname stands for both. */
function machineId(): string {
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()} ${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return THIS_HOST;
  }
}

/** Whether the holder's pid can be tested here. */
function local(holder: LockHolder): boolean {
  return holder.machine === THIS_MACHINE;
}

/** The lock file's holder, or null when there is no lock file (a bare pid: a holder on this host). */
export function readSyncLock(dbPath: string): LockHolder | null {
  return readHolder(lockPathOf(dbPath));
}

function readHolder(file: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  if (/^\d+$/.test(text)) return { host: THIS_HOST, machine: THIS_MACHINE, pid: Number(text), token: text, beat: 0 };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.host === 'string' && Number.isInteger(parsed.pid) && typeof parsed.token === 'string' && Number.isInteger(parsed.beat)) {
      return { host: parsed.host, machine: typeof parsed.machine === 'string' ? parsed.machine : '', pid: parsed.pid!, token: parsed.token, beat: parsed.beat! };
    }
  } catch {
    // half a file cannot be seen (it is renamed into place); anything else is not a holder
  }
  return { host: THIS_HOST, machine: THIS_MACHINE, pid: 0, token: text, beat: 0 };
}

function sameHolder(a: LockHolder, b: LockHolder): boolean {
  return a.host === b.host && a.machine === b.machine && a.pid === b.pid && a.token === b.token && a.beat === b.beat;
}

/**
 * The pid holding the database's sync lock, or null (none, or left by a killed run on this host).
 * A holder on another host is taken at its word: only watching its heartbeat can tell.
 */
export function syncLockHolder(dbPath: string): number | null {
  const holder = readSyncLock(dbPath);
  if (holder === null || holder.pid <= 0) return null;
  if (!local(holder)) return holder.pid;
  return isAlive(holder.pid) ? holder.pid : null;
}

function lockPathOf(dbPath: string): string {
  return `${dbPath}.sync-lock`;
}

/** Locks held by this process (a pid check cannot tell two in-process syncs apart). */
const heldHere = new Set<string>();

/** How often a sync that waits for another one looks at the lock again. */
const WAIT_POLL_MS = 500;

/**
 * The lock, waiting up to `waitMs` for the sync that holds it to end (0: not at all); then, or
 * once `signal` aborts, the SyncLockedError that says who holds it. A holder on another host is
 * watched until its heartbeat moves (then it is alive) or a lease has passed without (then it is
 * taken over), even when `waitMs` is shorter.
 */
export async function waitForSyncLock(dbPath: string, waitMs: number, signal?: AbortSignal, timing: LockTiming = {}): Promise<SyncLock> {
  const leaseMs = timing.leaseMs ?? DEFAULT_LEASE_MS;
  const started = performance.now();
  // the foreign holder's last seen beat, and when this process first saw it
  let seen: { token: string; beat: number; at: number; moved: boolean } | null = null;
  for (;;) {
    const now = performance.now();
    const outcome = tryAcquire(dbPath, leaseMs, (holder) => {
      if (seen === null || seen.token !== holder.token || seen.beat !== holder.beat) {
        seen = { token: holder.token, beat: holder.beat, at: now, moved: seen !== null };
        return false;
      }
      return now - seen.at >= leaseMs;
    });
    if ('lock' in outcome) return outcome.lock;
    const { holder } = outcome;
    const waited = now - started;
    const foreign = !local(holder);
    // a foreign holder counts as alive only once its heartbeat was seen to move
    const judged = !foreign || (seen as { moved: boolean } | null)?.moved === true;
    if ((waited >= waitMs && judged) || signal?.aborted) {
      throw new SyncLockedError(holder.pid, lockPathOf(dbPath), waitMs > 0 ? Math.round(waited) : 0, foreign ? holder.host : null);
    }
    const poll = Math.min(WAIT_POLL_MS, Math.max(10, Math.floor(leaseMs / 8)));
    await new Promise((r) => setTimeout(r, judged ? Math.min(poll, Math.max(10, waitMs - waited)) : poll));
  }
}

/** The lock at once, or SyncLockedError. A holder on another host is taken at its word. */
export function acquireSyncLock(dbPath: string, timing: LockTiming = {}): SyncLock {
  const outcome = tryAcquire(dbPath, timing.leaseMs ?? DEFAULT_LEASE_MS, () => false);
  if ('lock' in outcome) return outcome.lock;
  const { holder } = outcome;
  throw new SyncLockedError(holder.pid, lockPathOf(dbPath), 0, local(holder) ? null : holder.host);
}

/**
 * One attempt: the lock, or who holds it. `foreignStale` judges a holder on another host (true:
 * its heartbeat has not moved for a lease).
 */
function tryAcquire(dbPath: string, leaseMs: number, foreignStale: (holder: LockHolder) => boolean): { lock: SyncLock } | { holder: LockHolder } {
  const lockPath = lockPathOf(dbPath);
  if (heldHere.has(lockPath)) return { holder: { host: THIS_HOST, machine: THIS_MACHINE, pid: process.pid, token: '', beat: 0 } };
  for (let attempt = 0; attempt < 3; attempt++) {
    const mine: LockHolder = { host: THIS_HOST, machine: THIS_MACHINE, pid: process.pid, token: randomBytes(8).toString('hex'), beat: 0 };
    if (createLockFile(lockPath, mine)) return { lock: holdLock(lockPath, mine, leaseMs) };
    const holder = readSyncLock(dbPath);
    if (holder === null) continue; // released meanwhile: try again
    // where its pid means something: stale unless another live process holds it (our own pid: left by an earlier process)
    const stale = local(holder) ? !(holder.pid > 0 && holder.pid !== process.pid && isAlive(holder.pid)) : foreignStale(holder);
    if (!stale) return { holder };
    takeOver(lockPath, holder);
  }
  const holder = readSyncLock(dbPath);
  if (holder !== null) return { holder };
  throw new Error(`cannot take the sync lock ${lockPath}`);
}

/** Creates the lock file whole, or false when one exists (link() fails atomically on EEXIST, NFS too). */
function createLockFile(lockPath: string, holder: LockHolder): boolean {
  const temporary = `${lockPath}.${THIS_HOST}.${process.pid}.${holder.token}.tmp`;
  writeFileSync(temporary, JSON.stringify(holder), { mode: 0o600 });
  try {
    linkSync(temporary, lockPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Moves a stale lock aside; only one of several processes doing so at once gets it. If what was
 * moved is not the stale lock judged (its holder beat, or another process took it over, just
 * before), it is put back.
 */
function takeOver(lockPath: string, stale: LockHolder): void {
  const aside = `${lockPath}.${THIS_HOST}.${process.pid}.${randomBytes(8).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readHolder(aside);
  if (moved !== null && !sameHolder(moved, stale)) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // a third process created the lock meanwhile: the one moved learns at its next heartbeat
    }
  }
  rmSync(aside, { force: true });
}

/** A lock this process holds: its heartbeat, and its release. */
function holdLock(lockPath: string, holder: LockHolder, leaseMs: number): SyncLock {
  heldHere.add(lockPath);
  removeStrayBeats(lockPath);
  const lost = new AbortController();
  let current = holder;
  const beat = setInterval(() => {
    try {
      const onDisk = readHolder(lockPath);
      if (onDisk === null || !sameHolder(onDisk, current)) {
        // taken over while this process stalled beyond the lease: stop writing
        clearInterval(beat);
        lost.abort(new SyncLockLostError(lockPath));
        return;
      }
      const next = { ...current, beat: current.beat + 1 };
      const temporary = `${lockPath}.${THIS_HOST}.${process.pid}.${holder.token}.beat`;
      writeFileSync(temporary, JSON.stringify(next), { mode: 0o600 });
      renameSync(temporary, lockPath);
      current = next;
    } catch {
      // a volume briefly unwritable: the next beat tries again
    }
  }, beatEveryMs(leaseMs));
  beat.unref();
  return {
    lost: lost.signal,
    release: () => {
      clearInterval(beat);
      heldHere.delete(lockPath);
      // only our own lock is removed: one taken over belongs to its new holder
      const onDisk = readHolder(lockPath);
      if (onDisk !== null && sameHolder(onDisk, current)) rmSync(lockPath, { force: true });
    },
  };
}

/**
 * Only the holder writes a heartbeat file (then renames it onto the lock): one left beside the
 * lock is a killed holder's, cut between the write and the rename. The new holder removes them.
 */
function removeStrayBeats(lockPath: string): void {
  const prefix = `${basename(lockPath)}.`;
  try {
    for (const name of readdirSync(dirname(lockPath))) {
      if (name.startsWith(prefix) && name.endsWith('.beat')) rmSync(join(dirname(lockPath), name), { force: true });
    }
  } catch {
    // an unreadable folder: the files stay, nothing else depends on them
  }
}

/** Another process took this lock over: the run that held it stops. */
export class SyncLockLostError extends Error {
  constructor(readonly lockPath: string) {
    super(`the sync lock ${lockPath} was taken over by another process (this one stalled longer than the lease): this space's run stopped`);
    this.name = 'SyncLockLostError';
  }
}
