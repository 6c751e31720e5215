import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucket, names, redact, withHeartbeat } from '../src/names.js';
import { RabbitTransport } from '../src/index.js';

test('queue and exchange names live under one prefix', () => {
  const n = names('quire');
  assert.equal(n.stage('ingest.read'), 'quire.ingest.read');
  assert.equal(n.retry('ingest.read', 2000), 'quire.ingest.read.retry.2000');
  assert.equal(n.dead, 'quire.dead');
  assert.equal(n.events, 'quire.events');
});

test('retry delays are bucketed to two significant digits', () => {
  assert.deepEqual([0, 7, 99, 100, 149, 1234, 1250, 29_999, 30_000].map(bucket), [0, 7, 99, 100, 150, 1200, 1300, 30_000, 30_000]);
});

test('URLs get a heartbeat unless they set one, and lose their password in logs', () => {
  assert.equal(withHeartbeat('amqp://u:p@h:5672', 10), 'amqp://u:p@h:5672?heartbeat=10');
  assert.equal(withHeartbeat('amqp://h/vh?heartbeat=30', 10), 'amqp://h/vh?heartbeat=30');
  assert.equal(redact('amqp://guest:secret@h:5672/'), 'amqp://guest:***@h:5672/');
  assert.throws(() => new RabbitTransport({ url: 'http://nope' }), /amqp:\/\//);
});

test('a transport that is not connected fails loudly', async () => {
  const t = new RabbitTransport({ url: 'amqp://127.0.0.1:1' });
  await assert.rejects(t.publish({ id: 'm', jobId: 'j', pipeline: 'p', stage: 's', payload: {}, attempt: 1 }), (e: Error & { code?: string }) => e.code === 'SERVICE_UNAVAILABLE');
  await assert.rejects(t.consume('p.s', async () => {}, { prefetch: 1, maxAttempts: 1 }), /connection is down/);
  assert.equal((await t.health()).ok, false);
});

test('plugin options: the URL is needed to start, the URL and prefix are checked, the prefix defaults to quire', async () => {
  const { pluginContext } = await import('@quire/core');
  const plugin = (await import('../src/index.js')).default;
  await assert.rejects(async () => plugin.create(pluginContext(plugin)), /QUIRE_QUEUE_URL/);
  assert.throws(() => pluginContext(plugin, { options: { prefix: 'a b' } }), /transport:rabbitmq: option "prefix"/);
  assert.throws(() => pluginContext(plugin, { options: { url: 'http://x' } }), /transport:rabbitmq: option "url"/);
  assert.equal(pluginContext(plugin).options.prefix, 'quire');
  assert.deepEqual(pluginContext(plugin, { shared: { 'queue.concurrency': 4 } }).shared, { 'queue.concurrency': 4, 'queue.maxAttempts': 3 });
});
