import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { QuireError, pluginContext } from '@quire/core';
import plugin, { HashEmbedder, cosine, createLocalEmbedder, normalizeText } from '@quire/plugin-embedder-local';

const ctx = (options: Record<string, unknown> = {}) => pluginContext(plugin, { options });

test('space and dimension; vectors are unit length Float32Arrays', async () => {
  const e = await plugin.create(ctx());
  assert.equal(e.dimension, 384);
  assert.equal(e.space, 'local-hash-v1-384');
  const [v] = await e.embed(['Invoices are payable within thirty days.'], 'document');
  assert.ok(v instanceof Float32Array);
  assert.equal(v.length, 384);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  const [empty] = await e.embed(['  ?! '], 'query');
  assert.ok(empty!.every((x) => x === 0), 'no words: the zero vector');
  const e2 = await plugin.create(ctx({ dimension: 768 }));
  assert.equal(e2.space, 'local-hash-v1-768');
  assert.throws(() => createLocalEmbedder({ dimension: 3 }), (err: unknown) => err instanceof QuireError && err.code === 'VALIDATION_ERROR');
  assert.throws(() => ctx({ dimension: 3 }), /embedder:local: option "dimension": Too small/);
});

test('deterministic: the same text gives the same vector, across instances and processes', async () => {
  const text = 'Der Käufer zahlt die Rechnung binnen 30 Tagen — naïve café résumé';
  const a = new HashEmbedder().embed(text);
  const b = new HashEmbedder().embed(text);
  assert.deepEqual(a, b);
  const code = `import { HashEmbedder } from '@quire/plugin-embedder-local'; const v = new HashEmbedder().embed(${JSON.stringify(text)}); console.log(JSON.stringify(Array.from(v)));`;
  const r = spawnSync(process.execPath, ['--conditions=quire-source', '--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: process.cwd() });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(Float32Array.from(JSON.parse(r.stdout) as number[]), a);
});

test('similar texts are closer than unrelated ones', async () => {
  const e = new HashEmbedder();
  const sim = (x: string, y: string) => cosine(e.embed(x), e.embed(y));
  const anchor = 'Invoices are payable within thirty days of the invoice date; late payments accrue interest.';
  const para = 'Interest is charged on late invoice payments after thirty days.';
  const near = 'The invoice dispute must be raised within ten days.';
  const far = 'Knead the bread dough until smooth and let it rise for an hour.';
  assert.ok(sim(anchor, para) > sim(anchor, near), 'paraphrase beats a related sentence');
  assert.ok(sim(anchor, near) > sim(anchor, far), 'related beats unrelated');
  assert.ok(sim(anchor, far) < 0.15);
  // inflections, diacritics and case meet
  assert.ok(sim('paying the invoices', 'Pay invoice') > 0.6);
  assert.ok(sim('Café résumé', 'cafe resume') > 0.99);
  // character n-grams carry typos and compounds
  assert.ok(sim('authentication required', 'authentification requried') > sim('authentication required', 'holiday allowance'));
});

test('normalisation', () => {
  assert.equal(normalizeText('Straße ÆON Crème'), 'strasse aeon creme');
});

// a guard against a pathological slowdown (say, quadratic work), with a wide margin: thousands a second on an idle
// machine, 705 a second measured once beside several test suites on 2 cores; how fast it is belongs in bench/
test('not pathologically slow: 2,000 chunks embedded at over 100 a second', async () => {
  const e = createLocalEmbedder();
  const texts = Array.from({ length: 2000 }, (_, i) => `Chunk ${i}: the supplier shall deliver the equipment to the facility within ${i % 90} business days after the purchase order, and invoices are payable upon acceptance of the delivery by the customer's inspection team.`.repeat(3));
  const t = performance.now();
  await e.embed(texts, 'document');
  const perSec = texts.length / ((performance.now() - t) / 1000);
  console.log(`local embedder: ${Math.round(perSec)} chunks/s`);
  assert.ok(perSec > 100, `${Math.round(perSec)} chunks/s`);
});

test("a document's texts embedded in the plugin's thread give the same vectors as in the calling thread; after close() they are embedded in place", async () => {
  const e = await plugin.create(ctx());
  const direct = new HashEmbedder();
  const texts = Array.from({ length: 40 }, (_, i) => `Clause ${i}: l'entrepôt reçoit ${i * 7} colis — “Größe” ${'naïve café '.repeat(i % 5)}`);
  // several requests at once, answered in order of their own
  const parts = await Promise.all([texts.slice(0, 10), texts.slice(10, 30), texts.slice(30)].map((t) => e.embed(t, 'document')));
  const got = parts.flat();
  assert.equal(got.length, texts.length);
  texts.forEach((t, i) => assert.deepEqual(Array.from(got[i]!), Array.from(direct.embed(t)), `text ${i}`));
  await e.close?.();
  const after = await e.embed(texts.slice(0, 5), 'document');
  after.forEach((v, i) => assert.deepEqual(Array.from(v), Array.from(direct.embed(texts[i]!))));
});
