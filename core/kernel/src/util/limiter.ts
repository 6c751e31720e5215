/** A counting semaphore whose waiters can be aborted. */
export class Limiter {
  private active = 0;
  private readonly queue: { start: () => void; fail: (e: unknown) => void }[] = [];
  constructor(private readonly max: number) {}

  get running(): number {
    return this.active;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const entry = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: reject,
        };
        const onAbort = () => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal!.reason ?? new Error('aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.queue.push(entry);
      });
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next.start();
      else this.active--;
    }
  }
}
