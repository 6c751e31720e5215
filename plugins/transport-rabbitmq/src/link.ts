import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { errors } from '@quire/core';
import type { Logger } from '@quire/core';
import { redact } from './names.js';

export interface LinkOptions {
  /** URL with credentials (never logged as is) */
  url: string;
  logger: Logger;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** declares what every connection needs (exchanges, the dead-letter queue) */
  setup(ch: Channel): Promise<void>;
  /** after each (re)connection: restore consumers and subscriptions; a throw drops the connection and retries */
  onUp(conn: ChannelModel): Promise<void>;
  /** the connection is gone (its channels with it) */
  onDown(conn: ChannelModel): void;
}

/**
 * One AMQP connection kept alive: reconnects with exponential backoff when it drops (logging it), and
 * publishes through a confirm channel so a publish resolves only once the broker has the message. While
 * the connection is down, publishes fail at once with SERVICE_UNAVAILABLE instead of being buffered.
 */
export class AmqpLink {
  conn: ChannelModel | null = null;
  /** connected and onUp done (consumers and subscriptions restored) */
  ready = false;
  lastError: string | null = null;
  downSince: Date | null = null;
  private pub: ConfirmChannel | null = null;
  private pubOpening: Promise<ConfirmChannel> | null = null;
  private asserted = new Set<string>();
  private returned = new Set<string>();
  private closing = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempt = 0;

  constructor(private readonly o: LinkOptions) {}

  get where(): string {
    return redact(this.o.url);
  }

  /** Connects, retrying with backoff for up to `timeoutMs` (a broker that starts after Quire is waited for). */
  async connect(timeoutMs = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let delay = this.o.reconnectMinMs;
    let attempts = 0;
    for (;;) {
      try {
        await this.open();
        return;
      } catch (e) {
        this.lastError = (e as Error).message;
        attempts++;
        // waiting does not mend a refused login or a missing virtual host, and a host name that still does
        // not resolve after a few tries is most likely misspelt: say so now rather than after the timeout
        const refused = /ACCESS[-_]REFUSED|NOT[-_]ALLOWED|Expected ConnectionOpenOk/i.test(this.lastError);
        const unknownHost = (e as { code?: string }).code === 'ENOTFOUND' && attempts >= 3;
        if (refused) throw errors.unavailable(`cannot connect to RabbitMQ at ${this.where}: the broker refused the login or the virtual host (check the user, password and vhost of QUIRE_QUEUE_URL): ${this.lastError}`);
        if (unknownHost) throw errors.unavailable(`cannot connect to RabbitMQ at ${this.where}: the host name does not resolve (${this.lastError})`);
        if (Date.now() + delay > deadline) throw errors.unavailable(`cannot connect to RabbitMQ at ${this.where}: ${this.lastError}`);
        this.o.logger.warn({ err: this.lastError, retryInMs: delay }, 'RabbitMQ not reachable yet; retrying');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(this.o.reconnectMaxMs, delay * 2);
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const conn = this.conn;
    this.conn = null;
    this.ready = false;
    this.pub = null;
    if (conn) await conn.close().catch(() => {});
  }

  down(what: string): Error {
    return errors.unavailable(`RabbitMQ connection is down (${this.lastError ?? 'reconnecting'}); ${what}`);
  }

  /** The shared confirm channel, reopened if a channel error closed it. */
  async publisher(): Promise<ConfirmChannel> {
    if (this.pub) return this.pub;
    const conn = this.conn;
    if (!conn) throw this.down('message not published');
    if (!this.pubOpening) {
      this.pubOpening = (async () => {
        const ch = await conn.createConfirmChannel();
        ch.on('error', (e: Error) => this.o.logger.warn({ err: e.message }, 'RabbitMQ publish channel error'));
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
  async publish(exchange: string, routingKey: string, body: Buffer, props: Options.Publish, mandatory: boolean): Promise<void> {
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

  /** Publishes to a durable queue declared once per connection (or by `declare` every time); re-declares it if it went away. */
  async sendToQueue(queue: string, body: Buffer, props: Options.Publish, declare?: (ch: Channel) => Promise<unknown>): Promise<void> {
    for (let round = 0; ; round++) {
      if (declare) await declare(await this.publisher());
      else if (!this.asserted.has(queue)) {
        await (await this.publisher()).assertQueue(queue, { durable: true });
        this.asserted.add(queue);
      }
      try {
        return await this.publish('', queue, body, props, true);
      } catch (e) {
        if (!(e instanceof Unroutable) || round > 0) throw e;
        this.asserted.delete(queue); // deleted behind our back: declare it again and retry once
      }
    }
  }

  forget(queue: string): void {
    this.asserted.delete(queue);
  }

  /** Runs fn on a throwaway channel (a failed check or delete closes its channel). */
  async withChannel<R>(fn: (ch: Channel) => Promise<R>): Promise<R> {
    const conn = this.conn;
    if (!conn) throw this.down('cannot reach the broker');
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    try {
      return await fn(ch);
    } finally {
      await ch.close().catch(() => {});
    }
  }

  /** Message count of a queue (0 when it does not exist). */
  async count(queue: string): Promise<number> {
    try {
      return await this.withChannel(async (ch) => (await ch.checkQueue(queue)).messageCount);
    } catch (e) {
      if (/NOT_FOUND|404/.test((e as Error).message)) return 0;
      throw e;
    }
  }

  private async open(): Promise<void> {
    // amqplib is loaded at the first connection, not with the plugin (the embedded queue never needs it)
    const { default: amqp } = await import('amqplib');
    const conn = await amqp.connect(this.o.url);
    conn.on('error', (e: Error) => {
      this.lastError = e.message;
      this.o.logger.warn({ err: e.message }, 'RabbitMQ connection error');
    });
    conn.on('close', () => this.lost(conn));
    try {
      const ch = await conn.createChannel();
      await this.o.setup(ch);
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
    try {
      await this.o.onUp(conn);
      this.ready = this.conn === conn;
    } catch (e) {
      // opened, but restoring consumers failed: drop it and start over
      await conn.close().catch(() => {});
      this.lost(conn);
      throw e;
    }
  }

  private lost(conn: ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.ready = false;
    this.pub = null;
    this.pubOpening = null;
    this.o.onDown(conn);
    if (this.closing) return;
    this.downSince = new Date();
    this.o.logger.error({ url: this.where, err: this.lastError }, 'RabbitMQ connection lost; reconnecting (publishes fail until it is back)');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing || this.reconnectTimer) return;
    const delay = Math.min(this.o.reconnectMaxMs, this.o.reconnectMinMs * 2 ** this.reconnectAttempt++);
    this.reconnectTimer = setTimeout(async () => {
      this.reconnectTimer = null;
      if (this.closing) return;
      try {
        await this.open();
        this.o.logger.info({ url: this.where }, 'RabbitMQ connection restored');
      } catch (e) {
        this.lastError = (e as Error).message;
        this.o.logger.warn({ err: this.lastError, attempt: this.reconnectAttempt }, 'RabbitMQ reconnect failed');
        if (!this.conn) this.scheduleReconnect();
      }
    }, delay);
  }
}

export class Unroutable extends Error {
  constructor(queue: string) {
    super(`message to ${queue} was unroutable (queue missing)`);
    this.name = 'Unroutable';
  }
}
