import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, builtinFormats, definePlugin, detectFormat, extensionOf, looksLikeText, SUPPORTED_FORMATS, formatForExtension } from '@quire/core';
import { zip as zipEntries } from '../../../test/helpers/hostile.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-formats-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const write = (bytes: Buffer | string, name = 'file') => {
  const p = path.join(tmp, `${n++}-${name}`);
  fs.writeFileSync(p, bytes);
  return p;
};

/** A ZIP with deflated entries (the shared test helper's writer). */
const zip = (entries: Record<string, string | Buffer>): Buffer => zipEntries(Object.entries(entries).map(([name, content]) => ({ name, content })));

const ct = (main: string) => `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/x" ContentType="${main}"/></Types>`;

/** A minimal compound file (512-byte sectors: FAT in sector 0, directory in sector 1) with the given stream names. */
function cfb(streams: string[]): Buffer {
  const header = Buffer.alloc(512, 0);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(3, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(9, 0x1e);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(1, 0x2c); // FAT sectors
  header.writeUInt32LE(1, 0x30); // first directory sector
  header.writeUInt32LE(4096, 0x38);
  header.writeUInt32LE(0xfffffffe, 0x3c);
  header.writeUInt32LE(0xfffffffe, 0x44);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : 0xffffffff, 0x4c + i * 4);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0);
  fat.writeUInt32LE(0xfffffffe, 4);
  const dir = Buffer.alloc(512, 0);
  const entry = (i: number, name: string, type: number) => {
    const nb = Buffer.from(name + '\0', 'utf16le');
    nb.copy(dir, i * 128);
    dir.writeUInt16LE(nb.length, i * 128 + 0x40);
    dir[i * 128 + 0x42] = type;
  };
  entry(0, 'Root Entry', 5);
  streams.slice(0, 3).forEach((s, i) => entry(i + 1, s, 2));
  return Buffer.concat([header, fat, dir]);
}

test('extensionOf', () => {
  assert.equal(extensionOf('Report.Final.PDF'), 'pdf');
  assert.equal(extensionOf('/a/b.c/noext'), '');
  assert.equal(extensionOf('.bashrc'), '');
  assert.equal(extensionOf('x.tar.gz'), 'gz');
  assert.equal(formatForExtension('jpeg')?.format, 'jpg');
  assert.equal(formatForExtension('.TIF')?.format, 'tiff');
});

test('SUPPORTED_FORMATS lists every format with a mime type and a family', () => {
  const ids = ['pdf', 'docx', 'doc', 'txt', 'html', 'rtf', 'png', 'jpg', 'gif', 'bmp', 'tiff', 'csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw', 'pptx', 'ppt'];
  assert.deepEqual(Object.keys(SUPPORTED_FORMATS).sort(), [...ids].sort());
  for (const id of ids) {
    assert.match(SUPPORTED_FORMATS[id]!.mime, /^[a-z]+\/[\w.+-]+$/);
    assert.ok(['document', 'image', 'spreadsheet', 'presentation'].includes(SUPPORTED_FORMATS[id]!.family));
  }
});

test('magic numbers win over the extension', async () => {
  const cases: [Buffer, string][] = [
    [Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj\n', 'latin1'), 'pdf'],
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'png'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]), 'jpg'],
    [Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), 'gif'],
    [Buffer.concat([Buffer.from('BM'), Buffer.alloc(12), Buffer.from([40, 0, 0, 0]), Buffer.alloc(40)]), 'bmp'],
    [Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), 'tiff'],
    [Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]), 'tiff'],
    [Buffer.from('{\\rtf1\\ansi hello}'), 'rtf'],
    [zip({ '[Content_Types].xml': ct('application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'), 'word/document.xml': '<w/>' }), 'docx'],
    [zip({ '[Content_Types].xml': ct('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'), 'xl/workbook.xml': '<w/>' }), 'xlsx'],
    [zip({ '[Content_Types].xml': ct('application/vnd.ms-excel.sheet.macroEnabled.main+xml'), 'xl/workbook.xml': '<w/>', 'xl/vbaProject.bin': 'x' }), 'xlsm'],
    [zip({ '[Content_Types].xml': ct('application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml'), 'xl/workbook.xml': '<w/>' }), 'xltx'],
    [zip({ '[Content_Types].xml': ct('application/vnd.ms-excel.template.macroEnabled.main+xml'), 'xl/workbook.xml': '<w/>' }), 'xltm'],
    [zip({ '[Content_Types].xml': ct('application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'), 'ppt/presentation.xml': '<p/>' }), 'pptx'],
    [cfb(['WordDocument', '1Table']), 'doc'],
    [cfb(['Workbook']), 'xls'],
    [cfb(['Book']), 'xls'],
    [cfb(['Current User', 'PowerPoint Document']), 'ppt'],
    [cfb(['NativeContent_MAIN']), 'qpw'],
  ];
  for (const [bytes, want] of cases) {
    // a misleading name: the bytes decide
    const got = await detectFormat(write(bytes, 'renamed.txt'), 'renamed.txt');
    assert.equal(got?.format, want, `expected ${want}`);
    assert.equal(got?.mime, SUPPORTED_FORMATS[want]!.mime);
  }
});

test('text formats: extension decides among txt/csv/html, html sniffed from the content', async () => {
  assert.equal((await detectFormat(write('a,b\n1,2\n'), 'data.csv'))?.format, 'csv');
  assert.equal((await detectFormat(write('hello world\n'), 'notes.txt'))?.format, 'txt');
  assert.equal((await detectFormat(write('hello world\n'), 'README'))?.format, 'txt');
  assert.equal((await detectFormat(write('<!DOCTYPE html><html><body>x</body></html>'), 'page.txt'))?.format, 'html');
  assert.equal((await detectFormat(write('\uFEFF  <html lang="en"><p>x</p></html>'), 'page'))?.format, 'html');
  assert.equal((await detectFormat(write('<p>fragment</p>'), 'frag.htm'))?.format, 'html');
  assert.equal((await detectFormat(write('caf\xe9 cr\xe8me\n', 'latin1'), 'latin1.txt'))?.format, 'txt');
  assert.equal((await detectFormat(write(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello', 'utf16le')])), 'u16.txt'))?.format, 'txt');
});

/** 250 rows with Arabic and Chinese values: multibyte UTF-8, long enough that the 8 KB sample ends inside a character. */
function multilingualCsv(): string {
  for (let pad = 0; ; pad++) {
    const rows = [`id,name_ar,name_zh,city,amount${' '.repeat(pad)}`];
    for (let i = 0; i < 250; i++) rows.push(`${i},محمد عبد الله ${i},张伟${i}号,الرياض / 北京,${(i * 13.7).toFixed(2)}`);
    const csv = rows.join('\n') + '\n';
    if (Buffer.from(csv).subarray(0, 8192).toString('utf8').endsWith('\uFFFD')) return csv;
  }
}

test('text in any script: UTF-8 Arabic + Chinese csv (sample cut inside a character), with a BOM, emoji', async () => {
  const csv = multilingualCsv();
  const bytes = Buffer.from(csv, 'utf8');
  assert.ok(bytes.length > 8192 && bytes.subarray(0, 8192).toString('utf8').endsWith('\uFFFD'), 'the 8 KB sample cuts a character');
  assert.equal((await detectFormat(write(bytes), 'arabic-chinese.csv'))?.format, 'csv');
  assert.equal((await detectFormat(write(bytes), 'arabic-chinese.txt'))?.format, 'txt');
  assert.equal((await detectFormat(write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])), 'bom.csv'))?.format, 'csv');
  // short files (not cut) in scripts whose UTF-8 bytes fall in 0x80-0x9f a lot
  assert.equal((await detectFormat(write('名前,都市\n山田,東京\nМосква,Ελλάδα\n'), 'short.csv'))?.format, 'csv');
  const emoji = Buffer.from('note,😀\n'.repeat(2000));
  assert.equal((await detectFormat(write(emoji.subarray(0, 8190 + 4 * 3)), 'emoji.txt'))?.format, 'txt');
  assert.equal(looksLikeText(Buffer.from('price,€😀'), false), true);
});

test('UTF-16 and UTF-32 text: with a BOM (LE and BE), and UTF-16 without a BOM', async () => {
  const csv = multilingualCsv();
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]);
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(csv, 'utf16le').swap16()]);
  assert.equal((await detectFormat(write(le), 'u16le.csv'))?.format, 'csv');
  assert.equal((await detectFormat(write(be), 'u16be.csv'))?.format, 'csv');
  assert.equal((await detectFormat(write(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><body>x</body></html>', 'utf16le')])), 'page.txt'))?.format, 'html');
  const latin = 'name,city\nAnna,Berlin\nJosé,São Paulo\n'.repeat(50);
  assert.equal((await detectFormat(write(Buffer.from(latin, 'utf16le')), 'nobom-le.csv'))?.format, 'csv');
  assert.equal((await detectFormat(write(Buffer.from(latin, 'utf16le').swap16()), 'nobom-be.csv'))?.format, 'csv');
  const u32 = Buffer.alloc(4 + 4 * 20);
  u32.writeUInt32LE(0xfeff, 0);
  [...'a,b\n1,2\n中文,x\n'].forEach((ch, i) => u32.writeUInt32LE(ch.codePointAt(0)!, 4 + i * 4));
  assert.equal((await detectFormat(write(u32.subarray(0, 4 + 4 * [...'a,b\n1,2\n中文,x\n'].length)), 'u32.csv'))?.format, 'csv');
  // a UTF-16 BOM in front of binary is still binary
  const bin = Buffer.alloc(2000);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 7 + 1) % 32;
  assert.equal(await detectFormat(write(Buffer.concat([Buffer.from([0xff, 0xfe]), bin])), 'fake.csv'), null);
});

test('8-bit legacy encodings are text (the readers find the charset); control-heavy bytes are not', async () => {
  // Windows-1252 with curly quotes and dashes (bytes 0x80-0x9f)
  const cp1252 = Buffer.from('\x93Quoted\x94 \x96 dash \x85 and \x80 5\n'.repeat(200), 'latin1');
  assert.equal((await detectFormat(write(cp1252), 'cp1252.txt'))?.format, 'txt');
  // Shift-JIS 日本語のテキスト (lead bytes in 0x80-0x9f)
  const sjis = Buffer.from('93fa967b8cea82cc8365834c8358836700'.slice(0, -2) + '0a', 'hex');
  assert.equal((await detectFormat(write(Buffer.concat(Array(300).fill(sjis))), 'sjis.csv'))?.format, 'csv');
  // no NULs but full of control characters: binary
  const controls = Buffer.alloc(4096);
  for (let i = 0; i < controls.length; i++) controls[i] = i % 3 === 0 ? 0x01 + (i % 8) : 0x41;
  assert.equal(await detectFormat(write(controls), 'controls.txt'), null);
});

test('unknown and binary-with-text-extension are null', async () => {
  const garbage = Buffer.alloc(4096);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
  assert.equal(await detectFormat(write(garbage), 'garbage.txt'), null);
  assert.equal(await detectFormat(write(garbage), 'garbage.csv'), null);
  assert.equal(await detectFormat(write(Buffer.from([0, 1, 2, 3, 0, 0, 0])), 'x.html'), null);
  assert.equal(await detectFormat(write('plain text'), 'notes.md'), null);
  assert.equal(await detectFormat(write(zip({ 'a.txt': 'x' })), 'a.docx'), null);
  assert.equal(await detectFormat(write(cfb(['Something'])), 'a.doc'), null);
  assert.equal(await detectFormat(write('BM is how this text starts'), 'bm.txt').then((r) => r?.format), 'txt');
  assert.equal(await detectFormat(write(''), 'empty.txt').then((r) => r?.format), 'txt');
});

test('a zip bomb as [Content_Types].xml does not get inflated by detection', async () => {
  const bomb = zip({ '[Content_Types].xml': Buffer.alloc(256 * 1024 * 1024), 'xl/workbook.xml': '<workbook/>' });
  assert.ok(bomb.length < 1024 * 1024);
  const file = write(bomb, 'bomb.xlsx');
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  assert.equal((await detectFormat(file, 'bomb.xlsx'))?.format, 'xlsx');
  const grew = (process.memoryUsage().rss - rss0) / 1048576;
  assert.ok(grew < 64, `rss grew ${grew.toFixed(0)} MB`);
  assert.ok(performance.now() - t0 < 15_000);
});

test('a real docx made by the docx package is detected', async () => {
  const { Document, Packer, Paragraph } = await import('docx');
  const buf = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('Hello')] }] }));
  assert.equal((await detectFormat(write(buf), 'upload.bin'))?.format, 'docx');
});

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
test('corpus: every file is detected as its manifest format, also when renamed', { skip: !fs.existsSync(path.join(corpus, 'manifest.json')) }, async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { files: { id: string; path: string; format: string }[] };
  const wrong: string[] = [];
  for (const file of manifest.files) {
    const p = path.join(corpus, file.path);
    const got = await detectFormat(p, file.id);
    if (got?.format !== file.format) wrong.push(`${file.id}: ${got?.format}`);
    // binary formats are found from the bytes alone
    if (!['txt', 'csv', 'html'].includes(file.format)) {
      const renamed = await detectFormat(p, 'upload.dat');
      if (renamed?.format !== file.format) wrong.push(`${file.id} (renamed): ${renamed?.format}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('corpus: through a registry whose readers declare the built-in formats (and a markdown reader), every file gets the same format', { skip: !fs.existsSync(path.join(corpus, 'manifest.json')) }, async () => {
  const registry = new PluginRegistry({ dataDir: tmp });
  const read = async () => ({}) as never;
  registry.register(definePlugin({ kind: 'reader', name: 'all', core: '^1', formats: builtinFormats(...Object.keys(SUPPORTED_FORMATS)), create: () => ({ read }) }));
  registry.register(definePlugin({ kind: 'reader', name: 'md', core: '^1', formats: [{ format: 'md', extensions: ['.md'], mime: 'text/markdown' }], create: () => ({ read }) }));
  await registry.start();
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { files: { id: string; path: string }[] };
  const differ: string[] = [];
  for (const file of manifest.files) {
    const p = path.join(corpus, file.path);
    for (const name of [file.id, 'upload.dat', 'notes.md']) {
      const plain = await detectFormat(p, name);
      const viaRegistry = await registry.detectFormat(p, name);
      // a text file named .md is markdown now; everything else is unchanged
      const want = name === 'notes.md' && plain === null && viaRegistry?.format === 'md' ? viaRegistry : plain;
      if (JSON.stringify(viaRegistry) !== JSON.stringify(want)) differ.push(`${file.id} as ${name}: ${JSON.stringify(plain)} → ${JSON.stringify(viaRegistry)}`);
    }
  }
  assert.deepEqual(differ, []);
});
