import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { PluginRegistry, definePlugin } from '@quire/core';
import type { OcrPlugin, ParsedDocument, PluginContext } from '@quire/core';

const doc = (name: string) => ({ name }) as unknown as ParsedDocument;
const pdfReader = (name: string) =>
  definePlugin({ kind: 'reader', name, core: '^1', formats: [{ format: 'pdf', extensions: ['.pdf'], mime: 'application/pdf', detect: 'builtin' }], create: () => ({ read: async () => doc(name) }) });
const ocr = (name: string) => definePlugin({ kind: 'ocr', name, core: '^1', create: () => ({ recognize: async () => ({ text: name }) as never }) as OcrPlugin });
/** A reader that keeps its context, declaring the given uses. */
const user = (uses?: readonly string[]) =>
  definePlugin({
    kind: 'reader',
    name: 'user',
    core: '^1',
    formats: [{ format: 'wrap', extensions: ['.wrap'], mime: 'application/x-wrap' }],
    ...(uses ? { uses: uses as never } : {}),
    create: (ctx) => ({ read: async () => doc('user'), ctx }) as never,
  });
const ctxOf = (r: PluginRegistry) => (r.readerFor('wrap').instance as unknown as { ctx: PluginContext }).ctx;

test("uses: ctx.readerFor gives the host's reader of a format (the one registered last), ctx.ocr the selected OCR", async () => {
  const r = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'b' } });
  r.register(pdfReader('pdf'));
  r.register(pdfReader('pdf-other'));
  r.register(ocr('a'));
  r.register(ocr('b'));
  r.register(user(['reader:pdf', 'ocr']));
  await r.start();
  const ctx = ctxOf(r);
  assert.equal(((await ctx.readerFor('pdf')!.read({} as never, {} as never)) as unknown as { name: string }).name, 'pdf-other');
  assert.equal(((await ctx.ocr!.recognize('x', { language: 'eng' })) as unknown as { text: string }).text, 'b');
});

test('uses: a host choice pins the reader of a format (a reader isolate follows its host)', async () => {
  const r = new PluginRegistry({ dataDir: os.tmpdir(), readers: { pdf: 'pdf' } });
  r.register(pdfReader('pdf'));
  r.register(pdfReader('pdf-other'));
  r.register(user(['reader:pdf']));
  await r.start();
  assert.equal(((await ctxOf(r).readerFor('pdf')!.read({} as never, {} as never)) as unknown as { name: string }).name, 'pdf');
});

test('uses: what a plugin did not declare it cannot reach through ctx.ocr, ctx.use or ctx.readerFor', async () => {
  const r = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'a' } });
  r.register(pdfReader('pdf'));
  r.register(ocr('a'));
  r.register(user(['reader:pdf']));
  await r.start();
  const ctx = ctxOf(r);
  assert.throws(() => ctx.ocr, /reader:user uses ocr without declaring it: add uses: \['ocr'\]/);
  assert.throws(() => ctx.use('llm'), /uses llm without declaring it/);
  assert.throws(() => ctx.readerFor('docx'), /uses reader:docx without declaring it/);
  assert.ok(ctx.readerFor('pdf'));
});

test('uses: a required use that nothing meets stops start-up naming both; an optional one does not', async () => {
  const r = new PluginRegistry({ dataDir: os.tmpdir() });
  r.register(user(['reader:pdf', 'ocr']));
  await assert.rejects(r.start(), /reader:user uses reader:pdf, but no active reader reads pdf; reader:user uses ocr, but no ocr plugin is active/);
  const ok = new PluginRegistry({ dataDir: os.tmpdir() });
  ok.register(user(['reader:pdf?', 'ocr?']));
  await ok.start();
  assert.equal(ctxOf(ok).ocr, undefined);
  assert.equal(ctxOf(ok).readerFor('pdf'), undefined);
});

test('uses: a malformed entry is refused at registration', () => {
  const r = new PluginRegistry({ dataDir: os.tmpdir() });
  for (const bad of [['store'], ['reader:'], ['reader:PDF'], ['ocr??'], ['ocr:'], ['store:typeorm'], 'ocr', [3]]) {
    assert.throws(() => r.register(user(bad as never)), /"uses" of reader:user must list/, JSON.stringify(bad));
  }
});

test('uses: a plugin named in uses (ocr:<name>) is made before the one that uses it, whichever plugin of the kind is selected', async () => {
  const made: string[] = [];
  const engine = (name: string, fail = false) =>
    definePlugin({
      kind: 'ocr',
      name,
      core: '^1',
      create: () => {
        if (fail) throw new Error(`${name} cannot start`);
        made.push(name);
        return { recognize: async () => ({ text: name }) as never, languages: async () => [] } as OcrPlugin;
      },
    });
  const router = definePlugin({
    kind: 'ocr',
    name: 'router',
    core: '^1',
    uses: ['ocr:a', 'ocr:b?', 'ocr:missing?'],
    create: (ctx) => {
      made.push('router');
      const a = ctx.use('ocr', 'a')!;
      const b = ctx.use('ocr', 'b');
      assert.equal(ctx.use('ocr', 'missing'), undefined);
      assert.throws(() => ctx.use('ocr', 'c'), /uses ocr:c without declaring it/);
      return { recognize: async (p, o) => (b ?? a).recognize(p, o), languages: async () => [] } as OcrPlugin;
    },
  });
  const r = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'router' } });
  for (const p of [router, engine('a'), engine('b'), engine('c')]) r.register(p);
  await r.start();
  assert.deepEqual(made, ['a', 'b', 'router']);
  assert.equal(((await r.get('ocr').recognize('x', { language: 'eng' })) as unknown as { text: string }).text, 'b');

  // an optional one that cannot start is left out; a required one that is not there stops start-up
  const soft = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'router' } });
  for (const p of [router, engine('a'), engine('b', true)]) soft.register(p);
  await soft.start();
  assert.equal(((await soft.get('ocr').recognize('x', { language: 'eng' })) as unknown as { text: string }).text, 'a');
  const hard = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'router' } });
  for (const p of [router, engine('b')]) hard.register(p);
  await assert.rejects(hard.start(), /ocr:router uses ocr:a, but plugin ocr:a is not loaded or could not start/);
});
