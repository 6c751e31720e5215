// A `quire worker`-like child process for the crash test: consumes one pipeline over RabbitMQ with the real store.
// env: AMQP_URL, PREFIX, PIPELINE, DATA_DIR, SIDE_FILE, WORKER_ID, MODE (block|normal), LEASE_MS
import { PipelineRuntime } from '@quire/core';
import { RabbitTransport } from '@quire/plugin-transport-rabbitmq';
import { crashPipeline, openStore } from './rabbitmq-helpers.js';

const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};

const store = await openStore(env('DATA_DIR'));
const transport = new RabbitTransport({ url: env('AMQP_URL'), prefix: env('PREFIX') });
await transport.connect(5000);
const leaseMs = Number(process.env.LEASE_MS ?? 1000);
const runtime = new PipelineRuntime({ store, transport, workerId: env('WORKER_ID'), concurrency: 1, maxAttempts: 3, retryDelayMs: () => 100, pollMs: 50, leaseMs });
const pipeline = env('PIPELINE');
runtime.define(crashPipeline(pipeline, { sideFile: env('SIDE_FILE'), worker: env('WORKER_ID'), block: process.env.MODE === 'block', store }));
await runtime.consume();
process.stdout.write('READY\n');

process.on('SIGTERM', async () => {
  await runtime.stop();
  const retry = ['prepare', 'work', 'finish'].flatMap((s) => transport.retryQueuesOf(`${pipeline}.${s}`));
  process.stdout.write(`QUEUES ${JSON.stringify(retry)}\n`);
  await transport.close();
  await store.close();
  process.exit(0);
});
