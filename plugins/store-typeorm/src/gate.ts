import { AsyncLocalStorage } from 'node:async_hooks';

/** What the async context of a gated piece of work knows: whether it still holds the gate and its savepoint depth. */
export interface GateContext {
  open: boolean;
  depth: number;
}

/**
 * Serialises work on SQLite's single connection. A transaction holds the gate from BEGIN to COMMIT, so the
 * statements of other callers never land inside it; everything called from within the transaction's async
 * context (even through the outer store) runs straight away on the same connection instead of deadlocking.
 */
export class Gate {
  private readonly als = new AsyncLocalStorage<GateContext>();
  private tail: Promise<void> = Promise.resolve();

  /** The context of the caller when it runs inside gated work, else undefined. */
  current(): GateContext | undefined {
    const ctx = this.als.getStore();
    return ctx?.open ? ctx : undefined;
  }

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.current()) return fn();
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await prev;
    const ctx: GateContext = { open: true, depth: 0 };
    try {
      return await this.als.run(ctx, fn);
    } finally {
      ctx.open = false;
      release();
    }
  }
}
