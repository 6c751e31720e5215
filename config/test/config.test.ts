import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, ENV_VARS, loadConfig } from '@quire/config';
import { ERROR_CATALOGUE } from '@quire/core';

const root = path.resolve(import.meta.dirname, '../..');

test('defaults need nothing configured and are frozen', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.plugins.selected.transport, 'inprocess');
  assert.equal(c.limits.uploadBytes, 100 * 1024 * 1024);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.limits));
  assert.throws(() => ((c as any).port = 1));
});

test('a bad value stops start-up with one message naming the variable', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty' }), (e: unknown) => e instanceof ConfigError && /PORT/.test((e as Error).message));
  assert.throws(() => loadConfig({ QUIRE_DB_URL: 'postgres://x' }), /QUIRE_DB_URL/);
  assert.throws(() => loadConfig({ QUIRE_BOOTSTRAP_API_KEY: 'abc' }), /QUIRE_BOOTSTRAP_API_KEY/);
  assert.throws(() => loadConfig({ QUIRE_VECTOR_STORE: 'weaviate' }), /QUIRE_WEAVIATE_URL/);
  assert.equal(loadConfig({ QUIRE_QUEUE_URL: 'amqp://guest:guest@127.0.0.1:5672' }).plugins.selected.transport, 'rabbitmq');
});

test('the README documents every environment variable and every error code', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const v of ENV_VARS) assert.ok(readme.includes(`\`${v.name}\``), `README lacks ${v.name}`);
  for (const code of Object.keys(ERROR_CATALOGUE)) assert.ok(readme.includes(`\`${code}\``), `README lacks error code ${code}`);
});
