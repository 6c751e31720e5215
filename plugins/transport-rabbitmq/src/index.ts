import { definePlugin, errors } from '@quire/core';
import { RabbitTransport } from './transport.js';

export { RabbitTransport } from './transport.js';
export type { RabbitTransportOptions } from './transport.js';
export { names as queueNames, bucket as retryDelayBucket } from './names.js';
export type { Names as QueueNames } from './names.js';

/**
 * RabbitMQ transport. URL from `queue.url` (QUIRE_QUEUE_URL), prefetch from `queue.concurrency`, attempts
 * from `queue.maxAttempts`. Options `plugins.options["transport:rabbitmq"]`: `prefix` (default 'quire'),
 * `connectTimeoutMs` (how long start-up waits for the broker, default 30000).
 */
export default definePlugin({
  kind: 'transport',
  name: 'rabbitmq',
  core: '^1',
  description: 'Pipeline stages as durable RabbitMQ queues (amqplib) with retries and a dead-letter queue.',
  async create(ctx) {
    const queue = (ctx.config.queue ?? {}) as { url?: string; prefix?: string; concurrency?: number; maxAttempts?: number };
    if (!queue.url) throw errors.validation('the rabbitmq transport needs QUIRE_QUEUE_URL (queue.url)');
    const prefix = typeof ctx.options.prefix === 'string' && ctx.options.prefix ? ctx.options.prefix : (queue.prefix ?? 'quire');
    const connectTimeoutMs = typeof ctx.options.connectTimeoutMs === 'number' ? ctx.options.connectTimeoutMs : 30_000;
    const transport = new RabbitTransport({ url: queue.url, logger: ctx.logger, prefix, prefetch: queue.concurrency, maxAttempts: queue.maxAttempts });
    await transport.connect(connectTimeoutMs);
    return transport;
  },
});
