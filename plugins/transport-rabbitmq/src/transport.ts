import type { Channel, ChannelModel, ConsumeMessage, Options } from 'amqplib';
import { errors, isRequeue, retryDelayOf, silentLogger } from '@quire/core';
import type { ConsumeOptions, Logger, QuireEvent, StageHandler, StageMessage, Transport } from '@quire/core';
import { AmqpLink } from './link.js';
import { bucket, names, withHeartbeat, type Names } from './names.js';

export interface RabbitTransportOptions {
  /** amqp:// or amqps:// URL */
  url: string;
  logger?: Logger;
  /** prefix of every queue and exchange, default 'quire' */
  prefix?: string;
  /** prefetch when consume() gets none, default 2 */
  prefetch?: number;
  /** deliveries before dead-lettering when consume() gets none, default 3 */
  maxAttempts?: number;
  /** backoff when the consumer gives none: 1 s, 2 s, 4 s ... capped at 30 s */
  retryDelayMs?: (attempt: number) => number;
  /** reconnect backoff bounds, default 250 ms .. 10 s */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** AMQP heartbeat in seconds when the URL sets none, default 10 */
  heartbeatSeconds?: number;
}

interface ConsumerState {
  stage: string;
  queue: string;
  handler: StageHandler;
  prefetch: number;
  maxAttempts: number;
  delay: (attempt: number) => number;
  channel: Channel | null;
  tag: string | null;
  /** the connection the channel belongs to */
  conn: ChannelModel | null;
  cancelled: boolean;
  running: Set<Promise<void>>;
}

const defaultDelay = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));

export class RabbitTransport implements Transport {
  readonly name = 'rabbitmq';
  readonly names: Names;
  private readonly logger: Logger;
  private readonly opts: Required<Pick<RabbitTransportOptions, 'prefetch' | 'maxAttempts' | 'retryDelayMs'>>;
  private readonly link: AmqpLink;
  private consumers: ConsumerState[] = [];
  private retryQueues = new Map<string, Set<string>>();
  private eventHandlers: ((event: QuireEvent) => void)[] = [];
  private eventChannel: Channel | null = null;
  private closing = false;

  constructor(options: RabbitTransportOptions) {
    if (!/^amqps?:\/\//.test(options.url ?? '')) throw errors.validation('RabbitMQ transport needs an amqp:// or amqps:// URL (QUIRE_QUEUE_URL)');
    this.logger = options.logger ?? silentLogger;
    this.names = names(options.prefix ?? 'quire');
    this.opts = {
      prefetch: Math.max(1, options.prefetch ?? 2),
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      retryDelayMs: options.retryDelayMs ?? defaultDelay,
    };
    this.link = new AmqpLink({
      url: withHeartbeat(options.url, options.heartbeatSeconds ?? 10),
      logger: this.logger,
      reconnectMinMs: options.reconnectMinMs ?? 250,
      reconnectMaxMs: options.reconnectMaxMs ?? 10_000,
      setup: async (ch) => {
        await ch.assertExchange(this.names.events, 'fanout', { durable: true });
        await ch.assertQueue(this.names.dead, { durable: true });
      },
      onUp: (conn) => this.restore(conn),
      onDown: (conn) => {
        this.eventChannel = null;
        for (const c of this.consumers) if (c.conn === conn) (c.channel = null), (c.conn = null);
      },
    });
  }

  get connected(): boolean {
    return this.link.conn !== null;
  }

  /** Connects, retrying with backoff for up to `timeoutMs` (a broker that starts after Quire is waited for). */
  async connect(timeoutMs = 0): Promise<void> {
    await this.link.connect(timeoutMs);
  }

  async publish(msg: StageMessage): Promise<void> {
    await this.sendMessage(this.names.stage(`${msg.pipeline}.${msg.stage}`), msg, {});
  }

  async consume(stage: string, handler: StageHandler, options: ConsumeOptions): Promise<{ cancel(): Promise<void> }> {
    const c: ConsumerState = {
      stage,
      queue: this.names.stage(stage),
      handler,
      prefetch: Math.max(1, options.prefetch || this.opts.prefetch),
      maxAttempts: Math.max(1, options.maxAttempts || this.opts.maxAttempts),
      delay: retryDelayOf(options, this.opts.retryDelayMs),
      channel: null,
      tag: null,
      conn: null,
      cancelled: false,
      running: new Set(),
    };
    if (!this.link.conn) throw this.link.down('cannot start a consumer');
    this.consumers.push(c);
    try {
      await this.startConsumer(c);
    } catch (e) {
      this.consumers = this.consumers.filter((x) => x !== c);
      throw e;
    }
    return { cancel: () => this.cancelConsumer(c) };
  }

  async publishEvent(event: QuireEvent): Promise<void> {
    await this.link.publish(this.names.events, '', Buffer.from(JSON.stringify(event)), { persistent: false, contentType: 'application/json', type: event.type, messageId: event.id }, false);
  }

  async subscribeEvents(handler: (event: QuireEvent) => void): Promise<void> {
    this.eventHandlers.push(handler);
    if (!this.eventChannel && this.link.conn) await this.startEvents(this.link.conn);
  }

  /** Messages waiting in the stage queue and its retry queues (not those being handled). */
  async depth(stage: string): Promise<number> {
    let total = await this.link.count(this.names.stage(stage));
    for (const q of this.retryQueues.get(stage) ?? []) total += await this.link.count(q);
    return total;
  }

  /** Messages in the dead-letter queue. */
  async deadDepth(): Promise<number> {
    return this.link.count(this.names.dead);
  }

  /** Retry queues this process has used for a stage. */
  retryQueuesOf(stage: string): string[] {
    return [...(this.retryQueues.get(stage) ?? [])];
  }

  /** Deletes a stage queue and the retry queues this process knows for it (maintenance and tests). */
  async deleteStage(stage: string): Promise<void> {
    await this.link.withChannel((ch) => ch.deleteQueue(this.names.stage(stage)));
    for (const q of this.retryQueues.get(stage) ?? []) await this.link.withChannel((ch) => ch.deleteQueue(q));
    this.retryQueues.delete(stage);
    this.link.forget(this.names.stage(stage));
  }

  async ping(): Promise<void> {
    const ch = await this.link.publisher();
    await ch.checkExchange(this.names.events);
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    if (this.link.ready) return { ok: true, message: `connected to ${this.link.where}` };
    if (this.link.conn) return { ok: false, message: `reconnected to ${this.link.where}; restoring consumers` };
    const since = this.link.downSince ? ` since ${this.link.downSince.toISOString()}` : '';
    return { ok: false, message: `RabbitMQ at ${this.link.where} unreachable${since}${this.link.lastError ? `: ${this.link.lastError}` : ''}; reconnecting` };
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled(this.consumers.map((c) => this.cancelConsumer(c)));
    this.eventChannel = null;
    await this.link.close();
  }

  // --------------------------------------------------------------------------------------------------

  /** After each (re)connection: consumers and the event subscription come back. */
  private async restore(conn: ChannelModel): Promise<void> {
    for (const c of this.consumers) if (!c.cancelled) await this.startConsumer(c);
    if (this.eventHandlers.length) await this.startEvents(conn);
  }

  /** Sends a stage message to its durable queue (or a retry queue), persistent and confirmed. */
  private async sendMessage(queue: string, msg: StageMessage, headers: Record<string, unknown>, declare?: (ch: Channel) => Promise<unknown>): Promise<void> {
    const props: Options.Publish = { persistent: true, contentType: 'application/json', messageId: msg.id, headers: { 'x-quire-attempt': msg.attempt, ...headers } };
    await this.link.sendToQueue(queue, Buffer.from(JSON.stringify(msg)), props, declare);
  }

  private async startConsumer(c: ConsumerState): Promise<void> {
    const conn = this.link.conn;
    if (!conn || c.cancelled) return;
    const ch = await conn.createChannel();
    ch.on('error', (e: Error) => this.logger.warn({ err: e.message, queue: c.queue }, 'RabbitMQ consumer channel error'));
    ch.on('close', () => {
      if (c.channel !== ch) return;
      c.channel = null;
      c.tag = null;
      // the channel died alone (not with the connection): open another one for this consumer
      if (!c.cancelled && this.link.conn === conn && !this.closing) setTimeout(() => this.startConsumer(c).catch((e) => this.logger.warn({ err: e.message, queue: c.queue }, 'consumer restart failed')), 250);
    });
    await ch.assertQueue(c.queue, { durable: true });
    await ch.prefetch(c.prefetch);
    c.channel = ch;
    c.conn = conn;
    const { consumerTag } = await ch.consume(c.queue, (m) => this.delivered(c, ch, m), { noAck: false });
    c.tag = consumerTag;
  }

  private delivered(c: ConsumerState, ch: Channel, m: ConsumeMessage | null): void {
    if (!m) {
      this.logger.warn({ queue: c.queue }, 'RabbitMQ cancelled the consumer (queue deleted?)');
      if (!c.cancelled) void ch.close().catch(() => {});
      return;
    }
    const p = this.handle(c, ch, m).finally(() => c.running.delete(p));
    c.running.add(p);
  }

  private async handle(c: ConsumerState, ch: Channel, m: ConsumeMessage): Promise<void> {
    let msg: StageMessage;
    try {
      msg = JSON.parse(m.content.toString('utf8'));
      if (!msg || typeof msg.jobId !== 'string' || typeof msg.stage !== 'string') throw new Error('not a stage message');
      if (!Number.isInteger(msg.attempt) || msg.attempt < 1) msg.attempt = 1;
    } catch (e) {
      await this.settle(ch, m, () => this.deadLetter(c.queue, m.content, `unreadable message: ${(e as Error).message}`, 0));
      return;
    }
    try {
      await c.handler(msg);
    } catch (err) {
      await this.settle(ch, m, () => this.afterFailure(c, msg, err));
      return;
    }
    this.ack(ch, m, c.queue);
  }

  /** Runs the republish for a failed delivery, then acks; if republishing fails the broker keeps the message. */
  private async settle(ch: Channel, m: ConsumeMessage, republish: () => Promise<void>): Promise<void> {
    try {
      await republish();
    } catch (e) {
      this.logger.error({ err: (e as Error).message }, 'could not republish a failed message; returning it to its queue');
      try {
        ch.nack(m, false, true);
      } catch {
        // channel gone: the broker redelivers it anyway
      }
      return;
    }
    this.ack(ch, m, '');
  }

  private async afterFailure(c: ConsumerState, msg: StageMessage, err: unknown): Promise<void> {
    if (isRequeue(err)) return this.later(c, msg, err.delayMs ?? 0);
    const error = err instanceof Error ? err.message || err.name : String(err);
    if (msg.attempt < c.maxAttempts) {
      const delay = bucket(c.delay(msg.attempt));
      this.logger.warn({ queue: c.queue, jobId: msg.jobId, attempt: msg.attempt, error, retryInMs: delay }, 'stage message failed; retrying');
      return this.later(c, { ...msg, attempt: msg.attempt + 1 }, delay, error);
    }
    this.logger.error({ queue: c.queue, jobId: msg.jobId, attempt: msg.attempt, error }, 'stage message dead-lettered');
    await this.deadLetter(c.queue, Buffer.from(JSON.stringify(msg)), error, msg.attempt);
  }

  /** Back to the stage queue after `delayMs`, through a retry queue whose TTL dead-letters into it. */
  private async later(c: ConsumerState, msg: StageMessage, delayMs: number, lastError?: string): Promise<void> {
    const headers = lastError ? { 'x-quire-last-error': lastError.slice(0, 1000) } : {};
    const ms = bucket(delayMs);
    if (ms <= 0) return this.sendMessage(c.queue, msg, headers);
    const retry = this.names.retry(c.stage, ms);
    let set = this.retryQueues.get(c.stage);
    if (!set) this.retryQueues.set(c.stage, (set = new Set()));
    set.add(retry);
    // declared on every use: that also resets x-expires, so an idle retry queue disappears on its own
    const declare = (ch: Channel) => ch.assertQueue(retry, { durable: true, arguments: { 'x-message-ttl': ms, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': c.queue, 'x-expires': ms * 2 + 60_000 } });
    await this.sendMessage(retry, msg, headers, declare);
  }

  private async deadLetter(queue: string, body: Buffer, error: string, attempts: number): Promise<void> {
    await this.link.sendToQueue(this.names.dead, body, {
      persistent: true,
      contentType: 'application/json',
      headers: { 'x-quire-error': error.slice(0, 4000), 'x-quire-queue': queue, 'x-quire-attempts': attempts, 'x-quire-failed-at': new Date().toISOString() },
    });
  }

  private ack(ch: Channel, m: ConsumeMessage, queue: string): void {
    try {
      ch.ack(m);
    } catch (e) {
      this.logger.warn({ err: (e as Error).message, queue }, 'ack lost with its channel; the broker will redeliver (the stage claim makes that harmless)');
    }
  }

  private async cancelConsumer(c: ConsumerState): Promise<void> {
    if (c.cancelled) return;
    c.cancelled = true;
    this.consumers = this.consumers.filter((x) => x !== c);
    const ch = c.channel;
    if (ch && c.tag) await ch.cancel(c.tag).catch(() => {});
    await Promise.allSettled([...c.running]);
    c.channel = null;
    if (ch) await ch.close().catch(() => {});
  }

  private async startEvents(conn: ChannelModel): Promise<void> {
    const ch = await conn.createChannel();
    ch.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'RabbitMQ event channel error'));
    const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
    await ch.bindQueue(queue, this.names.events, '');
    await ch.consume(queue, (m) => {
      if (!m) return;
      let event: QuireEvent;
      try {
        event = JSON.parse(m.content.toString('utf8'));
      } catch {
        return;
      }
      for (const h of this.eventHandlers) {
        try {
          h(event);
        } catch (e) {
          this.logger.warn({ err: (e as Error).message, event: event.type }, 'event handler failed');
        }
      }
    }, { noAck: true });
    this.eventChannel = ch;
  }
}
