import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, SHARED_DEFAULTS, builtinFormats, definePlugin, isQuireError, pluginContext, sharedSettings, z } from '@quire/core';
import type { FormatDeclaration, ParsedDocument, ReaderPlugin } from '@quire/core';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-contract-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const write = (bytes: Buffer | string, name: string) => {
  const p = path.join(tmp, `${n++}-${name}`);
  fs.writeFileSync(p, bytes);
  return p;
};

const empty = (format: string): ParsedDocument => ({ format }) as unknown as ParsedDocument;

/** A reader plugin that reads the given formats and says which reader it is. */
const reader = (name: string, formats: FormatDeclaration[]) =>
  definePlugin({ kind: 'reader', name, core: '^1', formats, create: () => ({ read: async (input) => ({ ...empty(input.format), name }) }) });

const chunker = definePlugin({
  kind: 'chunker',
  name: 'sized',
  core: '^1',
  options: z.strictObject({ size: z.number().int().min(1).default(100), labels: z.array(z.string()).default(['a']) }),
  shared: ['limits.parseTimeoutMs', 'ocr.concurrency'],
  create: (ctx) => ({ chunk: () => [{ id: `${ctx.options.size}:${ctx.shared['limits.parseTimeoutMs']}:${ctx.shared['ocr.concurrency']}` } as never], ctx }),
});

test('options: parsed by the plugin schema with its defaults, frozen; only the declared shared settings', async () => {
  const r = new PluginRegistry({ dataDir: tmp, selected: { chunker: 'sized' }, options: { 'chunker:sized': { size: 7 } }, shared: { 'limits.parseTimeoutMs': 5000 } });
  r.register(chunker);
  await r.start();
  const ctx = (r.get('chunker') as unknown as { ctx: Record<string, any> }).ctx;
  assert.deepEqual(ctx.options, { size: 7, labels: ['a'] });
  assert.ok(Object.isFrozen(ctx.options) && Object.isFrozen(ctx.options.labels));
  assert.deepEqual(ctx.shared, { 'limits.parseTimeoutMs': 5000, 'ocr.concurrency': SHARED_DEFAULTS['ocr.concurrency'] });
  assert.ok(Object.isFrozen(ctx.shared));
  assert.equal(ctx.config, undefined, 'no plugin sees the configuration');
  assert.deepEqual(Object.keys(ctx).sort(), ['dataDir', 'get', 'http', 'logger', 'ocr', 'options', 'readerFor', 'shared', 'tryGet', 'use']);
});

test('options: a bad or unknown option stops start-up naming the plugin, the option and where it came from', async () => {
  const make = (options: Record<string, unknown>) => {
    const r = new PluginRegistry({ dataDir: tmp, selected: { chunker: 'sized' }, options: { 'chunker:sized': options }, optionSources: { 'chunker:sized.size': 'QUIRE_SIZE' } });
    return () => r.register(chunker);
  };
  // at registration, when options were given
  assert.throws(make({ size: 0 }), /invalid options of plugin chunker:sized: option "size" \(QUIRE_SIZE\): Too small/);
  assert.throws(make({ sise: 3 }), /invalid options of plugin chunker:sized: unknown option "sise"/);
  assert.throws(make({ labels: [1] }), /option "labels\.0": /);
  // at creation, with the options of the plugin only (a required option that nobody gave)
  const strict = definePlugin({ kind: 'chunker', name: 'strict', core: '^1', options: z.strictObject({ url: z.url() }), create: () => ({ chunk: () => [] }) });
  const r = new PluginRegistry({ dataDir: tmp, selected: { chunker: 'strict' } });
  r.register(strict);
  await assert.rejects(r.start(), /invalid options of plugin chunker:strict: option "url": /);
  // the same check for a plugin made in a test
  assert.throws(() => pluginContext(chunker, { options: { size: -1 } }), /chunker:sized: option "size"/);
  assert.equal(pluginContext(chunker).options.size, 100);
});

test('shared settings: from the host, a config object at their paths, or the defaults; unknown ones are refused', () => {
  assert.equal(sharedSettings({ limits: { parseTimeoutMs: 1234 }, ocr: { language: 'deu' } })['limits.parseTimeoutMs'], 1234);
  assert.equal(sharedSettings({ ocr: { language: 'deu' } })['ocr.language'], 'deu');
  assert.deepEqual(sharedSettings(), SHARED_DEFAULTS);
  const r = new PluginRegistry({ dataDir: tmp });
  assert.throws(() => r.register({ kind: 'chunker', name: 'x', core: '^1', shared: ['llm.apiKey'], create: () => ({ chunk: () => [] }) } as never), /unknown shared settings llm\.apiKey/);
});

test('a plugin without a schema gets its options frozen as given', () => {
  const legacy = { kind: 'chunker', name: 'old', core: '^1', create: () => ({ chunk: () => [] }) } as const;
  const ctx = pluginContext(legacy as never, { options: { any: { thing: 1 } } });
  assert.deepEqual(ctx.options, { any: { thing: 1 } });
  assert.ok(Object.isFrozen((ctx.options as { any: object }).any));
});

const md: FormatDeclaration = { format: 'md', extensions: ['.md', '.markdown'], mime: 'text/markdown' };

async function started(...plugins: ReturnType<typeof reader>[]) {
  const r = new PluginRegistry({ dataDir: tmp });
  for (const p of plugins) r.register(p);
  await r.start();
  return r;
}

test('open formats: a reader adds a text format by extension; the built-in formats are detected as before', async () => {
  const r = await started(reader('office', builtinFormats('txt', 'html', 'docx')), reader('sheet', builtinFormats('csv')), reader('markdown', [md]));
  assert.deepEqual(await r.detectFormat(write('# Title\n\nText.\n', 'notes.md'), 'notes.md'), { format: 'md', mime: 'text/markdown' });
  assert.equal((await r.detectFormat(write('# Title\n', 'x.MARKDOWN'), 'x.MARKDOWN'))?.format, 'md');
  assert.equal(r.readerFor('md').name, 'markdown');
  assert.deepEqual(r.readerFor('md').instance.formats, ['md']);
  // binary content behind the extension is not markdown
  assert.equal(await r.detectFormat(write(Buffer.from([0, 1, 2, 3, 0, 0, 9]), 'bin.md'), 'bin.md'), null);
  // built-in formats and their rules are unchanged
  assert.equal((await r.detectFormat(write('a,b\n1,2\n', 'd.csv'), 'd.csv'))?.format, 'csv');
  assert.equal((await r.detectFormat(write('<!DOCTYPE html><html></html>', 'p.txt'), 'p.txt'))?.format, 'html');
  assert.equal((await r.detectFormat(write('plain', 'README'), 'README'))?.format, 'txt');
  // a built-in format no active reader reads is not supported (pdf), nor an unknown extension
  assert.equal(await r.detectFormat(write('%PDF-1.7\n', 'a.pdf'), 'a.pdf'), null);
  assert.equal(await r.detectFormat(write('text', 'a.xyz'), 'a.xyz'), null);
  assert.throws(() => r.readerFor('pdf'), (e: unknown) => isQuireError(e) && e.code === 'UNSUPPORTED_FORMAT');
  assert.deepEqual(
    r.formats().map((f) => `${f.format}:${f.reader}:${f.extensions.join('|')}`),
    ['csv:sheet:.csv', 'docx:office:.docx', 'html:office:.html|.htm', 'md:markdown:.md|.markdown', 'txt:office:.txt'],
  );
});

test('open formats: magic bytes and sniff tests, tried before the built-in detection', async () => {
  const zipped: FormatDeclaration = { format: 'epub', extensions: ['.epub'], mime: 'application/epub+zip', detect: { magic: [{ bytes: 'mimetypeapplication/epub+zip', offset: 30 }] } };
  const sniffed: FormatDeclaration = { format: 'eml', extensions: ['.eml'], mime: 'message/rfc822', detect: { sniff: (head) => /^(From|Received|Return-Path): /m.test(head.toString('latin1', 0, 512)) } };
  const throws: FormatDeclaration = { format: 'bad', extensions: ['.bad'], mime: 'application/x-bad', detect: { sniff: () => { throw new Error('oops'); } } };
  const r = await started(reader('office', builtinFormats('txt')), reader('books', [zipped, sniffed, throws]));
  const epub = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('mimetypeapplication/epub+zip')]);
  assert.equal((await r.detectFormat(write(epub, 'book.zip'), 'book.zip'))?.format, 'epub');
  assert.equal((await r.detectFormat(write('Received: from x\nSubject: hi\n\nbody', 'mail.txt'), 'mail.txt'))?.format, 'eml');
  assert.equal((await r.detectFormat(write('just text', 'a.txt'), 'a.txt'))?.format, 'txt');
});

test('open formats: a later reader takes over a format (its reader and its declaration)', async () => {
  const mine: FormatDeclaration = { format: 'csv', extensions: ['.csv', '.tsv'], mime: 'text/csv' };
  const r = await started(reader('sheet', builtinFormats('csv')), reader('office', builtinFormats('txt')), reader('tables', [mine]));
  assert.equal(r.readerFor('csv').name, 'tables');
  assert.equal((await r.detectFormat(write('a\tb\n', 't.tsv'), 't.tsv'))?.format, 'csv');
  assert.equal((await r.detectFormat(write('a,b\n', 'c.csv'), 'c.csv'))?.format, 'csv');
  const doc = await r.readerFor('csv').instance.read({ path: '', name: 'c.csv', format: 'csv', size: 1, documentId: 'd' }, { ocr: { enabled: false, language: 'eng' } });
  assert.equal((doc as unknown as { name: string }).name, 'tables');
});

test('open formats: a reader that lists format ids on its instance still works (and takes over by registering later)', async () => {
  const r = new PluginRegistry({ dataDir: tmp });
  r.register(reader('office', builtinFormats('txt')));
  r.register({ kind: 'reader', name: 'old', core: '^1', create: (): ReaderPlugin => ({ formats: ['txt', 'custom'], read: async (i) => empty(i.format) }) });
  await r.start();
  assert.equal(r.readerFor('txt').name, 'old');
  assert.equal(r.readerFor('custom').name, 'old');
  assert.equal((await r.detectFormat(write('hello', 'a.txt'), 'a.txt'))?.format, 'txt');
});

test('open formats: bad declarations are refused at registration', () => {
  const r = new PluginRegistry({ dataDir: tmp });
  const bad = (d: Partial<FormatDeclaration>) => () => r.register(reader('x', [{ ...md, ...d } as FormatDeclaration]));
  assert.throws(bad({ format: 'Mark Down' }), /format id/);
  assert.throws(bad({ extensions: [] }), /extensions/);
  assert.throws(bad({ mime: 'markdown' }), /mime/);
  assert.throws(bad({ detect: 'builtin' }), /only for the built-in formats/);
  assert.throws(bad({ detect: { magic: [{ bytes: [] }] } }), /each magic needs bytes/);
  assert.throws(bad({ detect: { magic: [{ bytes: 'x', offset: 9000 }] } }), /each magic needs bytes/);
  assert.throws(bad({ detect: 'guess' as never }), /detect must be/);
  assert.throws(() => r.register(reader('x', [md, md])), /declared twice/);
  assert.throws(() => r.register({ ...chunker, formats: [md] } as never), /only readers declare formats/);
});
