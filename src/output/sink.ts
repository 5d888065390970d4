// Writing a large result to stdout without holding it in memory: text is batched into
// ~64 KiB writes, and a full pipe pauses the producer (backpressure). A reader that goes
// away (`convoduck query … | head`) ends the output quietly instead of crashing.

import type { Writable } from 'node:stream';

const FLUSH_AT = 64 * 1024;

function ignorePipeErrors(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
}

export class OutputSink {
  private buffer: string[] = [];
  private size = 0;
  private broken = false;
  private error: Error | null = null;

  constructor(private readonly stream: Writable) {
    stream.on('error', this.onError);
  }

  private readonly onError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') this.broken = true;
    else this.error = err;
  };

  /** True once the reader has gone away: stop producing. */
  get closed(): boolean {
    return this.broken;
  }

  async write(text: string): Promise<void> {
    if (this.broken) return;
    this.buffer.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.error) throw this.error;
    if (this.size === 0 || this.broken) {
      this.buffer = [];
      this.size = 0;
      return;
    }
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.size = 0;
    if (this.stream.destroyed) {
      this.broken = true;
      return;
    }
    const ok = this.stream.write(chunk);
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('drain', done);
          this.stream.off('close', done);
          this.stream.off('error', done);
          resolve();
        };
        this.stream.on('drain', done);
        this.stream.on('close', done);
        this.stream.on('error', done);
      });
    }
    if (this.error) throw this.error;
  }

  /** Flushes what is left; the stream itself stays open (it is usually stdout). */
  async end(): Promise<void> {
    await this.flush();
    this.stream.off('error', this.onError);
    // A reader may still go away while the last bytes drain: that is not a failure either.
    if (!this.stream.listeners('error').includes(ignorePipeErrors)) this.stream.on('error', ignorePipeErrors);
  }
}
