import { definePlugin } from '../plugin/kinds.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { isRequeue, retryDelayOf } from '../pipeline/delivery.js';
import type { Store } from '../store.js';
import type { ConsumeOptions, QuireEvent, StageHandler, StageMessage, Transport } from './types.js';

export interface DeadLetter {
  queue: string;
  message: StageMessage;
  error: string;
  at: Date;
}

export interface InProcessTransportOptions {
  logger?: Logger;
  /** default backoff when the consumer gives none: 25 ms, 50 ms, 100 ms ... capped at 1 s */
  retryDelayMs?: (attempt: number) => number;
  /**
   * Keeps every message in the store's stage_messages table until it is handled, so that a restart loses
   * nothing: recover() puts them back in the queues. Without a store, messages live in memory only.
   */
  store?: Store;
}

interface Consumer {
  queue: string;
  handler: StageHandler;
  options: ConsumeOptions;
  inFlight: number;
  active: boolean;
  running: Set<Promise<void>>;
}

const defaultDelay = (attempt: number) => Math.min(1000, 25 * 2 ** Math.max(0, attempt - 1));

/**
 * Stage queues in memory: one FIFO per `<pipeline>.<stage>`, consumers take up to `prefetch` messages at
 * once (round-robin between consumers of a queue), a failed message comes back with attempt + 1 after a
 * delay and goes to the dead-letter list after maxAttempts. Messages are copied through JSON on publish,
 * as they would be on the wire. Events are dispatched to local subscribers.
 */
export class InProcessTransport implements Transport {
  readonly name = 'inprocess';
  private readonly store?: Store;
  private queues = new Map<string, StageMessage[]>();
  private consumers = new Map<string, Consumer[]>();
  private rr = new Map<string, number>();
  /** retries waiting for their delay, per queue */
  private delayed = new Map<string, Set<NodeJS.Timeout>>();
  private eventHandlers: ((event: QuireEvent) => void)[] = [];
  private dead: DeadLetter[] = [];
  private closed = false;
  private readonly logger: Logger;
  private readonly fallbackDelay: (attempt: number) => number;

  constructor(opts: InProcessTransportOptions = {}) {
    this.logger = opts.logger ?? silentLogger;
    this.fallbackDelay = opts.retryDelayMs ?? defaultDelay;
    this.store = opts.store;
  }

  /** Whether messages are kept in the store (they survive a restart). */
  get durable(): boolean {
    return !!this.store;
  }

  /**
   * Puts the messages kept in the store back in their queues (retries keep their attempt and wait for their
   * time). Call once at start-up, before consuming; this process must be the only one using this store's
   * embedded queue. Returns how many messages came back.
   */
  async recover(): Promise<number> {
    if (!this.store) return 0;
    const rows = await this.store.repo('stage_messages').find({}, { order: { created_at: 'ASC' } });
    const now = Date.now();
    for (const row of rows) {
      const msg = row.body as unknown as StageMessage;
      const wait = new Date(row.available_at).getTime() - now;
      if (wait > 0) this.later(row.queue, msg, wait);
      else this.enqueue(row.queue, msg);
    }
    if (rows.length) this.logger.info({ messages: rows.length }, 'stage messages recovered from the store');
    return rows.length;
  }

  static queueOf(msg: Pick<StageMessage, 'pipeline' | 'stage'>): string {
    return `${msg.pipeline}.${msg.stage}`;
  }

  async publish(msg: StageMessage): Promise<void> {
    if (this.closed) throw new Error('in-process transport is closed');
    const queue = InProcessTransport.queueOf(msg);
    const copy = JSON.parse(JSON.stringify(msg)) as StageMessage;
    if (this.store) {
      const now = new Date();
      await this.store.repo('stage_messages').insert({ id: copy.id, queue, job_id: copy.jobId, body: copy as unknown as Record<string, unknown>, available_at: now, created_at: now });
    }
    this.enqueue(queue, copy);
  }

  async consume(stage: string, handler: StageHandler, options: ConsumeOptions): Promise<{ cancel(): Promise<void> }> {
    if (this.closed) throw new Error('in-process transport is closed');
    const c: Consumer = {
      queue: stage,
      handler,
      options: { ...options, prefetch: Math.max(1, options.prefetch || 1), maxAttempts: Math.max(1, options.maxAttempts || 1) },
      inFlight: 0,
      active: true,
      running: new Set(),
    };
    const list = this.consumers.get(stage) ?? [];
    list.push(c);
    this.consumers.set(stage, list);
    this.pump(stage);
    return {
      cancel: async () => {
        c.active = false;
        const l = this.consumers.get(stage) ?? [];
        this.consumers.set(stage, l.filter((x) => x !== c));
        await Promise.allSettled([...c.running]);
      },
    };
  }

  async publishEvent(event: QuireEvent): Promise<void> {
    const copy = JSON.parse(JSON.stringify(event)) as QuireEvent;
    for (const h of [...this.eventHandlers]) {
      queueMicrotask(() => {
        try {
          h(copy);
        } catch (e) {
          this.logger.warn({ err: e, event: copy.type }, 'event handler failed');
        }
      });
    }
  }

  async subscribeEvents(handler: (event: QuireEvent) => void): Promise<void> {
    this.eventHandlers.push(handler);
  }

  /** Messages waiting in the queue, ready or waiting for a retry (not those being handled). */
  async depth(stage: string): Promise<number> {
    return (this.queues.get(stage)?.length ?? 0) + (this.delayed.get(stage)?.size ?? 0);
  }

  /** Messages given up on after maxAttempts, oldest first. */
  deadLetters(): DeadLetter[] {
    return [...this.dead];
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('in-process transport is closed');
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    return this.closed ? { ok: false, message: 'closed' } : { ok: true, message: 'in-process stage queues' };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.delayed.values()) for (const t of set) clearTimeout(t);
    this.delayed.clear();
    const running: Promise<void>[] = [];
    for (const list of this.consumers.values()) {
      for (const c of list) {
        c.active = false;
        running.push(...c.running);
      }
    }
    this.consumers.clear();
    this.eventHandlers = [];
    await Promise.allSettled(running);
  }

  private enqueue(queue: string, msg: StageMessage): void {
    let q = this.queues.get(queue);
    if (!q) this.queues.set(queue, (q = []));
    q.push(msg);
    this.pump(queue);
  }

  private later(queue: string, msg: StageMessage, delayMs: number): void {
    if (this.closed) return;
    let set = this.delayed.get(queue);
    if (!set) this.delayed.set(queue, (set = new Set()));
    const t = setTimeout(() => {
      set!.delete(t);
      if (!this.closed) this.enqueue(queue, msg);
    }, Math.max(0, delayMs));
    set.add(t);
  }

  private pump(queue: string): void {
    const q = this.queues.get(queue);
    for (;;) {
      if (!q?.length || this.closed) return;
      const c = this.pick(queue);
      if (!c) return;
      this.deliver(c, q.shift()!);
    }
  }

  /** Next consumer of the queue with a free slot, round-robin. */
  private pick(queue: string): Consumer | undefined {
    const list = (this.consumers.get(queue) ?? []).filter((c) => c.active);
    if (!list.length) return undefined;
    const start = this.rr.get(queue) ?? 0;
    for (let i = 0; i < list.length; i++) {
      const c = list[(start + i) % list.length]!;
      if (c.inFlight < c.options.prefetch) {
        this.rr.set(queue, (start + i + 1) % list.length);
        return c;
      }
    }
    return undefined;
  }

  private deliver(c: Consumer, msg: StageMessage): void {
    c.inFlight++;
    const p: Promise<void> = Promise.resolve()
      .then(() => c.handler(msg))
      .then(
        () => this.forget(msg),
        (err) => this.failed(c, msg, err),
      )
      .catch((e) => this.logger.error({ err: e, queue: c.queue, jobId: msg.jobId }, 'stage message bookkeeping failed'))
      .finally(() => {
        c.inFlight--;
        c.running.delete(p);
        // another message may now fit in the freed slot
        queueMicrotask(() => this.pump(c.queue));
      });
    c.running.add(p);
  }

  /** The message was handled: it is gone from the store. */
  private async forget(msg: StageMessage): Promise<void> {
    if (this.store && !this.closed) await this.store.repo('stage_messages').delete(msg.id);
  }

  private async failed(c: Consumer, msg: StageMessage, err: unknown): Promise<void> {
    if (isRequeue(err)) {
      this.later(c.queue, msg, err.delayMs ?? 0);
      return;
    }
    const error = err instanceof Error ? err.message : String(err);
    if (msg.attempt < c.options.maxAttempts) {
      const delay = retryDelayOf(c.options, this.fallbackDelay)(msg.attempt);
      this.logger.warn({ queue: c.queue, jobId: msg.jobId, attempt: msg.attempt, error, retryInMs: delay }, 'stage message failed; retrying');
      const next = { ...msg, attempt: msg.attempt + 1 };
      if (this.store && !this.closed) await this.store.repo('stage_messages').update(msg.id, { body: next as unknown as Record<string, unknown>, available_at: new Date(Date.now() + delay) });
      this.later(c.queue, next, delay);
    } else {
      this.logger.error({ queue: c.queue, jobId: msg.jobId, attempt: msg.attempt, error }, 'stage message dead-lettered');
      this.dead.push({ queue: c.queue, message: msg, error, at: new Date() });
      await this.forget(msg);
    }
  }
}

export const inProcessTransportPlugin = definePlugin({
  kind: 'transport',
  name: 'inprocess',
  core: '^1',
  description: 'Stage queues in this process, kept in the database until handled (the default when no queue URL is set).',
  async create(ctx) {
    const store = ctx.tryGet('store');
    const t = new InProcessTransport({ logger: ctx.logger, store });
    await t.recover();
    return t;
  },
});
