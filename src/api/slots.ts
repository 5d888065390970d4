// A request holds one of `concurrency` slots from before its send until its body is read: the
// socket pool's size, with waiters served in order and dropped when their call is aborted.

export class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  async take(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(go);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(go);
    });
  }
  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
