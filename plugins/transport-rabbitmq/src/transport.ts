import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { errors, isRequeue, retryDelayOf, silentLogger } from '@quire/core';
import type { ConsumeOptions, Logger, QuireEvent, StageHandler, StageMessage, Transport } from '@quire/core';
import { bucket, names, redact, withHeartbeat, type Names } from './names.js';

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
  private readonly url: string;
  private readonly logger: Logger;
  private readonly opts: Required<Pick<RabbitTransportOptions, 'prefetch' | 'maxAttempts' | 'retryDelayMs' | 'reconnectMinMs' | 'reconnectMaxMs'>>;
  private conn: ChannelModel | null = null;
  private pub: ConfirmChannel | null = null;
  private pubOpening: Promise<ConfirmChannel> | null = null;
  private asserted = new Set<string>();
  private returned = new Set<string>();
  private consumers: ConsumerState[] = [];
  private retryQueues = new Map<string, Set<string>>();
  private eventHandlers: ((event: QuireEvent) => void)[] = [];
  private eventChannel: Channel | null = null;
  private closing = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempt = 0;
  private downSince: Date | null = null;
  private lastError: string | null = null;

  constructor(options: RabbitTransportOptions) {
    if (!/^amqps?:\/\//.test(options.url ?? '')) throw errors.validation('RabbitMQ transport needs an amqp:// or amqps:// URL (QUIRE_QUEUE_URL)');
    this.url = withHeartbeat(options.url, options.heartbeatSeconds ?? 10);
    this.logger = options.logger ?? silentLogger;
    this.names = names(options.prefix ?? 'quire');
    this.opts = {
      prefetch: Math.max(1, options.prefetch ?? 2),
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      retryDelayMs: options.retryDelayMs ?? defaultDelay,
      reconnectMinMs: options.reconnectMinMs ?? 250,
      reconnectMaxMs: options.reconnectMaxMs ?? 10_000,
    };
  }

  get connected(): boolean {
    return this.conn !== null;
  }

  /** Connects, retrying with backoff for up to `timeoutMs` (a broker that starts after Quire is waited for). */
  async connect(timeoutMs = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let delay = this.opts.reconnectMinMs;
    for (;;) {
      try {
        await this.open();
        return;
      } catch (e) {
        this.lastError = (e as Error).message;
        if (Date.now() + delay > deadline) throw errors.unavailable(`cannot connect to RabbitMQ at ${redact(this.url)}: ${(e as Error).message}`);
        this.logger.warn({ err: (e as Error).message, retryInMs: delay }, 'RabbitMQ not reachable yet; retrying');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(this.opts.reconnectMaxMs, delay * 2);
      }
    }
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
    if (!this.conn) throw errors.unavailable('RabbitMQ connection is down; cannot start a consumer');
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
    await this.publishRaw(this.names.events, '', Buffer.from(JSON.stringify(event)), { persistent: false, contentType: 'application/json', type: event.type, messageId: event.id }, false);
  }

  async subscribeEvents(handler: (event: QuireEvent) => void): Promise<void> {
    this.eventHandlers.push(handler);
    if (!this.eventChannel && this.conn) await this.startEvents(this.conn);
  }

  /** Messages waiting in the stage queue and its retry queues (not those being handled). */
  async depth(stage: string): Promise<number> {
    let total = await this.count(this.names.stage(stage));
    for (const q of this.retryQueues.get(stage) ?? []) total += await this.count(q);
    return total;
  }

  /** Messages in the dead-letter queue. */
  async deadDepth(): Promise<number> {
    return this.count(this.names.dead);
  }

  /** Retry queues this process has used for a stage. */
  retryQueuesOf(stage: string): string[] {
    return [...(this.retryQueues.get(stage) ?? [])];
  }

  /** Deletes a stage queue and the retry queues this process knows for it (maintenance and tests). */
  async deleteStage(stage: string): Promise<void> {
    await this.withChannel((ch) => ch.deleteQueue(this.names.stage(stage)));
    for (const q of this.retryQueues.get(stage) ?? []) await this.withChannel((ch) => ch.deleteQueue(q));
    this.retryQueues.delete(stage);
    this.asserted.delete(this.names.stage(stage));
  }

  async ping(): Promise<void> {
    const ch = await this.publisher();
    await ch.checkExchange(this.names.events);
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    if (this.conn) return { ok: true, message: `connected to ${redact(this.url)}` };
    const since = this.downSince ? ` since ${this.downSince.toISOString()}` : '';
    return { ok: false, message: `RabbitMQ at ${redact(this.url)} unreachable${since}${this.lastError ? `: ${this.lastError}` : ''}; reconnecting` };
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await Promise.allSettled(this.consumers.map((c) => this.cancelConsumer(c)));
    const conn = this.conn;
    this.conn = null;
    this.pub = null;
    this.eventChannel = null;
    if (conn) await conn.close().catch(() => {});
  }

  // --------------------------------------------------------------------------------------------------

  private async open(): Promise<void> {
    const conn = await amqp.connect(this.url);
    conn.on('error', (e: Error) => {
      this.lastError = e.message;
      this.logger.warn({ err: e.message }, 'RabbitMQ connection error');
    });
    conn.on('close', () => this.lost(conn));
    try {
      const ch = await conn.createChannel();
      await ch.assertExchange(this.names.events, 'fanout', { durable: true });
      await ch.assertQueue(this.names.dead, { durable: true });
      await ch.close();
    } catch (e) {
      await conn.close().catch(() => {});
      throw e;
    }
    this.conn = conn;
    this.pub = null;
    this.asserted.clear();
    this.downSince = null;
    this.reconnectAttempt = 0;
    for (const c of this.consumers) if (!c.cancelled) await this.startConsumer(c);
    if (this.eventHandlers.length) await this.startEvents(conn);
  }

  private lost(conn: ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.pub = null;
    this.pubOpening = null;
    this.eventChannel = null;
    for (const c of this.consumers) if (c.conn === conn) (c.channel = null), (c.conn = null);
    if (this.closing) return;
    this.downSince = new Date();
    this.logger.error({ url: redact(this.url), err: this.lastError }, 'RabbitMQ connection lost; reconnecting (publishes fail until it is back)');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing || this.reconnectTimer) return;
    const delay = Math.min(this.opts.reconnectMaxMs, this.opts.reconnectMinMs * 2 ** this.reconnectAttempt++);
    this.reconnectTimer = setTimeout(async () => {
      this.reconnectTimer = null;
      if (this.closing) return;
      try {
        await this.open();
        this.logger.info({ url: redact(this.url) }, 'RabbitMQ connection restored');
      } catch (e) {
        this.lastError = (e as Error).message;
        this.logger.warn({ err: this.lastError, attempt: this.reconnectAttempt }, 'RabbitMQ reconnect failed');
        if (this.conn) {
          // opened but restoring consumers failed: drop it and start over
          const conn = this.conn;
          await conn.close().catch(() => {});
          this.lost(conn);
        } else this.scheduleReconnect();
      }
    }, delay);
  }

  /** The shared confirm channel, reopened if a channel error closed it. */
  private async publisher(): Promise<ConfirmChannel> {
    if (this.pub) return this.pub;
    const conn = this.conn;
    if (!conn) throw errors.unavailable(`RabbitMQ connection is down (${this.lastError ?? 'reconnecting'}); message not published`);
    if (!this.pubOpening) {
      this.pubOpening = (async () => {
        const ch = await conn.createConfirmChannel();
        ch.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'RabbitMQ publish channel error'));
        ch.on('close', () => {
          if (this.pub === ch) this.pub = null;
          this.asserted.clear();
        });
        ch.on('return', (m: ConsumeMessage) => {
          if (m.properties.correlationId) this.returned.add(m.properties.correlationId);
        });
        this.pub = ch;
        return ch;
      })().finally(() => (this.pubOpening = null));
    }
    return this.pubOpening;
  }

  /** Publishes and resolves once the broker confirmed it; rejects when it was unroutable, nacked or the channel closed. */
  private async publishRaw(exchange: string, routingKey: string, body: Buffer, props: Options.Publish, mandatory: boolean): Promise<void> {
    const ch = await this.publisher();
    const correlationId = randomUUID();
    await new Promise<void>((resolve, reject) => {
      try {
        ch.publish(exchange, routingKey, body, { ...props, correlationId, mandatory }, (err) => {
          const unroutable = this.returned.delete(correlationId);
          if (err) reject(errors.unavailable(`RabbitMQ did not confirm the message to ${exchange || routingKey}: ${err?.message ?? err}`));
          else if (unroutable) reject(new Unroutable(routingKey));
          else resolve();
        });
      } catch (e) {
        reject(errors.unavailable(`RabbitMQ publish to ${exchange || routingKey} failed: ${(e as Error).message}`));
      }
    });
  }

  /** Sends a stage message to its durable queue (or a retry queue), persistent and confirmed. */
  private async sendMessage(queue: string, msg: StageMessage, headers: Record<string, unknown>, declare?: (ch: Channel) => Promise<unknown>): Promise<void> {
    const props: Options.Publish = { persistent: true, contentType: 'application/json', messageId: msg.id, headers: { 'x-quire-attempt': msg.attempt, ...headers } };
    await this.sendToQueue(queue, Buffer.from(JSON.stringify(msg)), props, declare);
  }

  /** Publishes to a queue declared once per connection (or by `declare` every time); re-declares it if it went away. */
  private async sendToQueue(queue: string, body: Buffer, props: Options.Publish, declare?: (ch: Channel) => Promise<unknown>): Promise<void> {
    for (let round = 0; ; round++) {
      if (declare) await declare(await this.publisher());
      else if (!this.asserted.has(queue)) {
        await (await this.publisher()).assertQueue(queue, { durable: true });
        this.asserted.add(queue);
      }
      try {
        return await this.publishRaw('', queue, body, props, true);
      } catch (e) {
        if (!(e instanceof Unroutable) || round > 0) throw e;
        this.asserted.delete(queue); // deleted behind our back: declare it again and retry once
      }
    }
  }

  private async startConsumer(c: ConsumerState): Promise<void> {
    const conn = this.conn;
    if (!conn || c.cancelled) return;
    const ch = await conn.createChannel();
    ch.on('error', (e: Error) => this.logger.warn({ err: e.message, queue: c.queue }, 'RabbitMQ consumer channel error'));
    ch.on('close', () => {
      if (c.channel !== ch) return;
      c.channel = null;
      c.tag = null;
      // the channel died alone (not with the connection): open another one for this consumer
      if (!c.cancelled && this.conn === conn && !this.closing) setTimeout(() => this.startConsumer(c).catch((e) => this.logger.warn({ err: e.message, queue: c.queue }, 'consumer restart failed')), this.opts.reconnectMinMs);
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
    await this.sendToQueue(this.names.dead, body, {
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

  /** Message count of a queue (0 when it does not exist); a throwaway channel because a 404 closes it. */
  private async count(queue: string): Promise<number> {
    try {
      return await this.withChannel(async (ch) => (await ch.checkQueue(queue)).messageCount);
    } catch (e) {
      if (/NOT_FOUND|404/.test((e as Error).message)) return 0;
      throw e;
    }
  }

  private async withChannel<R>(fn: (ch: Channel) => Promise<R>): Promise<R> {
    const conn = this.conn;
    if (!conn) throw errors.unavailable(`RabbitMQ connection is down (${this.lastError ?? 'reconnecting'})`);
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    try {
      return await fn(ch);
    } finally {
      await ch.close().catch(() => {});
    }
  }
}

class Unroutable extends Error {
  constructor(queue: string) {
    super(`message to ${queue} was unroutable (queue missing)`);
    this.name = 'Unroutable';
  }
}
