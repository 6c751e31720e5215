import { definePlugin, errors, z } from '@quire/core';
import { RabbitTransport } from './transport.js';

export { RabbitTransport } from './transport.js';
export type { RabbitTransportOptions } from './transport.js';
export { names as queueNames, bucket as retryDelayBucket } from './names.js';
export type { Names as QueueNames } from './names.js';

/**
 * RabbitMQ transport. Options `plugins.options["transport:rabbitmq"]`: `url` (QUIRE_QUEUE_URL), `prefix`
 * (QUIRE_QUEUE_PREFIX), `connectTimeoutMs`; prefetch and attempts are the shared queue settings
 * (QUIRE_STAGE_CONCURRENCY, QUIRE_MAX_ATTEMPTS).
 */
export default definePlugin({
  kind: 'transport',
  name: 'rabbitmq',
  core: '^1',
  description: 'Pipeline stages as durable RabbitMQ queues (amqplib) with retries and a dead-letter queue.',
  options: z.strictObject({
    /** amqp://user:pass@host:5672 (QUIRE_QUEUE_URL); needed to use it */
    url: z.string().regex(/^amqps?:\/\//, 'must be an amqp:// or amqps:// URL').optional(),
    /** prefix of queue and exchange names (QUIRE_QUEUE_PREFIX) */
    prefix: z.string().regex(/^[a-z0-9_.-]{1,40}$/i, 'letters, digits, _ . - only').default('quire'),
    /** how long start-up waits for the broker, ms */
    connectTimeoutMs: z.number().int().positive().default(30_000),
  }),
  shared: ['queue.concurrency', 'queue.maxAttempts'],
  async create(ctx) {
    const { url, prefix, connectTimeoutMs } = ctx.options;
    if (!url) throw errors.validation('the rabbitmq transport needs QUIRE_QUEUE_URL (option url)');
    const transport = new RabbitTransport({ url, logger: ctx.logger, prefix, prefetch: ctx.shared['queue.concurrency'], maxAttempts: ctx.shared['queue.maxAttempts'] });
    await transport.connect(connectTimeoutMs);
    return transport;
  },
});
