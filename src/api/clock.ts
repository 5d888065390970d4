// The limiter's only side effect is time: injected, so tests run minutes of traffic on a fake clock.

export interface Clock {
  /** Milliseconds on a monotonic scale (fractions allowed). */
  now(): number;
  /** Resolves after `ms`, or earlier (without throwing) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 2_000_000_000)));
      signal?.addEventListener('abort', done, { once: true });
    }),
};
