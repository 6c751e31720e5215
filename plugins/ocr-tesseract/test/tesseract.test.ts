import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createCanvas } from '@napi-rs/canvas';
import { pluginContext } from '@quire/core';
import plugin, { Limiter, parseTsv, parseOsd, TESSERACT_MISSING, Tesseract } from '@quire/plugin-ocr-tesseract';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ocr-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function textImage(lines: string[], file: string): string {
  const c = createCanvas(900, 70 + lines.length * 70);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '40px DejaVu Sans';
  lines.forEach((l, i) => g.fillText(l, 30, 70 + i * 70));
  const p = path.join(tmp, file);
  fs.writeFileSync(p, c.toBuffer('image/png'));
  return p;
}

const ctx = (options: Record<string, unknown> = {}) => pluginContext(plugin, { options, shared: { 'ocr.concurrency': 1, 'ocr.language': 'eng' }, dataDir: tmp });

test('parseTsv builds lines with boxes and 0..1 confidences, per page', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '1\t1\t0\t0\t0\t0\t0\t0\t800\t200\t-1\t',
    '4\t1\t1\t1\t1\t0\t22\t48\t405\t33\t-1\t',
    '5\t1\t1\t1\t1\t1\t22\t48\t117\t32\t90\tHello',
    '5\t1\t1\t1\t1\t2\t168\t48\t113\t33\t80\tworld',
    '4\t1\t2\t1\t1\t0\t22\t148\t100\t33\t-1\t',
    '5\t1\t2\t1\t1\t1\t22\t148\t100\t33\t70\tAgain',
    '1\t2\t0\t0\t0\t0\t0\t0\t640\t480\t-1\t',
    '5\t2\t1\t1\t1\t1\t10\t10\t50\t20\t60\tTwo',
  ].join('\n');
  const pages = parseTsv(tsv, 'eng');
  assert.equal(pages.length, 2);
  const [p1, p2] = pages;
  assert.equal(p1!.text, 'Hello world\n\nAgain');
  assert.equal(p1!.width, 800);
  assert.equal(p1!.lines.length, 2);
  assert.deepEqual(p1!.lines[0]!.bbox, { x: 22, y: 48, width: 405, height: 33 });
  assert.ok(Math.abs(p1!.lines[0]!.confidence - 0.85) < 1e-9);
  assert.ok(Math.abs(p1!.confidence - 0.8) < 1e-9);
  assert.equal(p2!.page, 2);
  assert.equal(p2!.text, 'Two');
  assert.equal(p2!.height, 480);
});

test('parseTsv: an amount split after its decimal point by a narrow gap is one word again; a real space stays', () => {
  const head = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
  const word = (line: number, n: number, x: number, w: number, text: string) => `5\t1\t1\t1\t${line}\t${n}\t${x}\t${line * 40}\t${w}\t23\t90\t${text}`;
  // a monospaced receipt: the usual space between words is about 20 px
  const tsv = [
    head,
    '1\t1\t0\t0\t0\t0\t0\t0\t520\t400\t-1\t',
    word(1, 1, 35, 64, 'TOTAL'),
    word(1, 2, 119, 126, '(Including'),
    word(1, 3, 265, 46, 'GST)'),
    word(1, 4, 460, 31, '79.'),
    word(1, 5, 500, 24, '35'),
    word(2, 1, 35, 104, 'PAID'),
    word(2, 2, 159, 40, 'ON'),
    word(2, 3, 219, 60, '2019.'),
    word(2, 4, 299, 24, '25'),
    word(2, 5, 343, 60, 'ITEMS'),
  ].join('\n');
  const [page] = parseTsv(tsv, 'eng');
  assert.deepEqual(page!.text.split('\n'), ['TOTAL (Including GST) 79.35', 'PAID ON 2019. 25 ITEMS']);
  const joined = page!.lines[0]!.words.at(-1)!;
  assert.deepEqual(joined.bbox, { x: 460, y: 40, width: 64, height: 23 });
});

test('parseOsd reads script and rotation', () => {
  const r = parseOsd('Page number: 0\nOrientation in degrees: 180\nRotate: 180\nOrientation confidence: 3.1\nScript: Cyrillic\nScript confidence: 2.5\n');
  assert.deepEqual(r, { script: 'Cyrillic', scriptConfidence: 2.5, orientation: 180, rotate: 180, orientationConfidence: 3.1 });
  assert.equal(parseOsd('Too few characters'), null);
});

test('Limiter runs at most N at once and drops aborted waiters', async () => {
  const lim = new Limiter(2);
  let active = 0;
  let peak = 0;
  const job = () => lim.run(async () => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 10));
    active--;
  });
  await Promise.all([job(), job(), job(), job(), job()]);
  assert.equal(peak, 2);
  const ac = new AbortController();
  const blockers = [lim.run(() => new Promise((r) => setTimeout(r, 30))), lim.run(() => new Promise((r) => setTimeout(r, 30)))];
  const waiting = lim.run(async () => 'ran', ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(waiting, /stop/);
  await Promise.all(blockers);
  assert.equal(lim.running, 0);
});

test('options: the binary and its concurrency, else the shared OCR concurrency and language', () => {
  const cfg = (o: Record<string, unknown>) => (plugin.create(ctx(o)) as unknown as { engine: { cfg: unknown } }).engine.cfg;
  assert.deepEqual(cfg({}), { binary: 'tesseract', concurrency: 1, language: 'eng', psm: 'auto' });
  assert.deepEqual(cfg({ binary: '/opt/t', concurrency: 3, psm: 4 }), { binary: '/opt/t', concurrency: 3, language: 'eng', psm: 4 });
  // as QUIRE_TESSERACT_PSM gives it
  assert.deepEqual(cfg({ psm: '6' }), { binary: 'tesseract', concurrency: 1, language: 'eng', psm: 6 });
  assert.throws(() => ctx({ psm: 0 }), /ocr:tesseract: option "psm"/);
  assert.throws(() => ctx({ psm: 'columns' }), /ocr:tesseract: option "psm"/);
  assert.throws(() => ctx({ binary: '' }), /ocr:tesseract: option "binary"/);
  assert.throws(() => ctx({ concurrency: 0 }), /ocr:tesseract: option "concurrency"/);
});

test('missing binary: health says how to install, recognize fails with SERVICE_UNAVAILABLE', async () => {
  const inst = await plugin.create(ctx({ binary: '/nonexistent/tesseract' }));
  const h = await inst.health!();
  assert.equal(h.ok, false);
  assert.equal(h.message, TESSERACT_MISSING);
  await assert.rejects(inst.recognize(path.join(tmp, 'x.png'), { language: 'eng' }), (e: any) => e.code === 'SERVICE_UNAVAILABLE' && /install tesseract-ocr/.test(e.message));
});

test('recognize: words, lines, confidence, size in pixels', { skip: !hasTesseract }, async () => {
  const img = textImage(['Invoice number: 12345', 'Total due: 99.50 EUR'], 'invoice.png');
  const inst = await plugin.create(ctx());
  assert.equal((await inst.health!()).ok, true);
  assert.ok((await inst.languages()).includes('eng'));
  const r = await inst.recognize(img, { language: 'eng' });
  assert.match(r.text, /Invoice number: 12345/);
  assert.match(r.text, /Total due: 99\.50 EUR/);
  assert.equal(r.width, 900);
  assert.equal(r.height, 210);
  assert.equal(r.lines.length, 2);
  assert.ok(r.confidence > 0.8 && r.confidence <= 1);
  const w = r.words.find((x) => x.text === '12345')!;
  assert.ok(w.bbox.x > 300 && w.bbox.y > 20 && w.bbox.y < 80, JSON.stringify(w.bbox));
  // auto: OSD finds Latin script and uses the default language
  const auto = await inst.recognize(img, { language: 'auto' });
  assert.match(auto.text, /12345/);
});

test('language codes are validated against the pattern and the installed list', { skip: !hasTesseract }, async () => {
  const inst = await plugin.create(ctx());
  const img = path.join(tmp, 'never-read.png');
  await assert.rejects(inst.recognize(img, { language: 'eng; rm -rf /' }), (e: any) => e.code === 'VALIDATION_ERROR');
  await assert.rejects(inst.recognize(img, { language: 'eng+zzz' }), (e: any) => e.code === 'VALIDATION_ERROR' && /zzz/.test(e.message));
});

test('abort kills the running process', { skip: !hasTesseract }, async () => {
  const engine = new Tesseract({ binary: 'tesseract', concurrency: 1, language: 'eng' });
  const img = textImage(Array.from({ length: 12 }, (_, i) => `Line ${i} of a longer page of text to read`), 'long.png');
  const ac = new AbortController();
  const started = Date.now();
  const p = engine.recognize(img, { language: 'eng', signal: ac.signal });
  setTimeout(() => ac.abort(new Error('cancelled')), 50);
  await assert.rejects(p, /cancelled|abort/i);
  assert.ok(Date.now() - started < 30_000);
  assert.equal(engine.running, 0);
});

test('a failing tesseract run says what failed (exit code, signal), never its stderr', async () => {
  // a stand-in binary: lists its languages, then fails every recognition with noise on stderr
  const bin = path.join(tmp, 'fake-tesseract.sh');
  fs.writeFileSync(
    bin,
    [
      '#!/bin/sh',
      'if [ "$1" = "--list-langs" ]; then echo "List of available languages (2):"; echo eng; echo osd; exit 0; fi',
      'if [ "$3" = "--psm" ] && [ "$4" = "0" ]; then kill -9 $$; fi',
      'echo "Error in pixReadStream: Unknown format: no pix returned" >&2',
      'echo "Leptonica Error in pixRead: pix not read: /tmp/secret/page-3.png" >&2',
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const engine = new Tesseract({ binary: bin, concurrency: 1, language: 'eng' });
  const img = textImage(['x'], 'fail.png');
  await assert.rejects(engine.recognize(img, { language: 'eng' }), (e: unknown) => {
    assert.ok(e instanceof Error && (e as { code?: string }).code === 'PROCESSING_ERROR');
    assert.equal(e.message, 'tesseract exited with code 1');
    return true;
  });
  await assert.rejects(engine.detectScript(img), (e: unknown) => e instanceof Error && e.message === 'tesseract was stopped (SIGKILL)' && !/Leptonica|pix/.test(e.message));
});

/** A stand-in binary that logs each call (OMP_THREAD_LIMIT, then its arguments) and answers like tesseract. */
function loggingTesseract(name: string): { bin: string; calls: () => string[] } {
  const bin = path.join(tmp, `${name}.sh`);
  const log = path.join(tmp, `${name}.log`);
  fs.writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `echo "$OMP_THREAD_LIMIT $*" >> '${log}'`,
      'if [ "$1" = "--list-langs" ]; then echo "List of available languages (2):"; echo eng; echo osd; exit 0; fi',
      'if [ "$1" = "--version" ]; then echo "tesseract 5.9.9"; exit 0; fi',
      'if [ "$4" = "0" ]; then printf "Page number: 0\\nOrientation in degrees: 90\\nRotate: 270\\nOrientation confidence: 9.5\\nScript: Latin\\nScript confidence: 4.0\\n"; exit 0; fi',
      'printf "level\\tpage_num\\tblock_num\\tpar_num\\tline_num\\tword_num\\tleft\\ttop\\twidth\\theight\\tconf\\ttext\\n"',
      'printf "1\\t1\\t0\\t0\\t0\\t0\\t0\\t0\\t800\\t200\\t-1\\t\\n4\\t1\\t1\\t1\\t1\\t0\\t22\\t48\\t405\\t33\\t-1\\t\\n"',
      'printf "5\\t1\\t1\\t1\\t1\\t1\\t22\\t48\\t117\\t32\\t96\\tHello\\n5\\t1\\t1\\t1\\t1\\t2\\t168\\t48\\t113\\t33\\t92\\tworld\\n"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { bin, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []) };
}

test('one tesseract process per page (TSV, --dpi passed on, one thread); languages probed once; OSD only when asked', async () => {
  const fake = loggingTesseract('per-page');
  const engine = new Tesseract({ binary: fake.bin, concurrency: 2, language: 'eng' });
  const pages = ['a.png', 'b.png', 'c.png'].map((f) => path.join(tmp, f));
  const results = await Promise.all(pages.map((p) => engine.recognize(p, { language: 'eng', dpi: 600 })));
  for (const r of results) {
    assert.equal(r.text, 'Hello world');
    assert.equal(r.words.length, 2);
    assert.equal(r.lines.length, 1);
    assert.ok(Math.abs(r.confidence - 0.94) < 1e-9);
  }
  const calls = fake.calls();
  assert.deepEqual(calls.filter((c) => c.includes('--list-langs')), ['1 --list-langs']);
  const runs = calls.filter((c) => !c.includes('--list-langs'));
  assert.deepEqual(runs.sort(), pages.map((p) => `1 ${p} stdout --psm 3 -l eng --dpi 600 tsv`).sort());
  // no dpi, or one out of range: tesseract reads the image's own
  await engine.recognize(pages[0]!, { language: 'eng' });
  await engine.recognize(pages[0]!, { language: 'eng', dpi: 10_000 });
  assert.deepEqual(fake.calls().slice(-2), [`1 ${pages[0]} stdout --psm 3 -l eng tsv`, `1 ${pages[0]} stdout --psm 3 -l eng tsv`]);
  assert.ok(!fake.calls().some((c) => / --psm 0 /.test(c)), 'recognition with a given language runs no OSD');
  assert.deepEqual(await engine.detectOrientation(pages[0]!), { rotate: 270, confidence: 9.5 });
  assert.equal(fake.calls().at(-1), `1 ${pages[0]} stdout --psm 0 -l osd`);
});

test('page segmentation: one block (psm 6) on a narrow image such as a till receipt, automatic (psm 3) on a page; a set mode always', async () => {
  const fake = loggingTesseract('psm');
  const image = (file: string, w: number, h: number, type: 'image/png' | 'image/jpeg') => {
    const c = createCanvas(w, h);
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    const p = path.join(tmp, file);
    fs.writeFileSync(p, type === 'image/png' ? c.toBuffer('image/png') : c.toBuffer('image/jpeg'));
    return p;
  };
  const receipt = image('receipt.png', 400, 1000, 'image/png');
  const receiptJpg = image('receipt.jpg', 300, 900, 'image/jpeg');
  const a4 = image('a4.png', 620, 877, 'image/png');
  const wide = image('wide.jpg', 900, 300, 'image/jpeg');
  const auto = new Tesseract({ binary: fake.bin, concurrency: 1, language: 'eng' });
  const psmOf = async (engine: Tesseract, file: string) => {
    await engine.recognize(file, { language: 'eng' });
    return / --psm (\d+) /.exec(fake.calls().at(-1)!)?.[1];
  };
  assert.equal(await psmOf(auto, receipt), '6');
  assert.equal(await psmOf(auto, receiptJpg), '6');
  assert.equal(await psmOf(auto, a4), '3');
  assert.equal(await psmOf(auto, wide), '3');
  assert.equal(await psmOf(auto, path.join(tmp, 'no-such-file.png')), '3');
  const four = new Tesseract({ binary: fake.bin, concurrency: 1, language: 'eng', psm: 4 });
  assert.equal(await psmOf(four, receipt), '4');
  assert.equal(await psmOf(four, a4), '4');
});

test('health: one version probe serves repeated checks', async () => {
  const fake = loggingTesseract('health');
  const engine = new Tesseract({ binary: fake.bin, concurrency: 1, language: 'eng' });
  const checks = await Promise.all([engine.health(), engine.health(), engine.health()]);
  checks.push(await engine.health());
  for (const h of checks) assert.deepEqual(h, { ok: true, message: 'tesseract 5.9.9; languages: eng' });
  assert.deepEqual(fake.calls().filter((c) => c.includes('--version')), ['1 --version']);
  assert.deepEqual(fake.calls().filter((c) => c.includes('--list-langs')), ['1 --list-langs']);
});

test('health: a failed version probe is not kept', async () => {
  const engine = new Tesseract({ binary: path.join(tmp, 'not-yet-there.sh'), concurrency: 1, language: 'eng' });
  assert.deepEqual(await engine.health(), { ok: false, message: TESSERACT_MISSING });
  const fake = loggingTesseract('not-yet-there');
  assert.equal(fake.bin, path.join(tmp, 'not-yet-there.sh'));
  assert.deepEqual(await engine.health(), { ok: true, message: 'tesseract 5.9.9; languages: eng' });
});

test('pages read side by side give the same words as one at a time', { skip: !hasTesseract }, async () => {
  const images = [
    textImage(['Invoice number: 12345', 'Total due: 99.50 EUR'], 'side-1.png'),
    textImage(['Delivery note 778', 'Shipped on 2024-03-01', 'Carrier: Rapid Freight'], 'side-2.png'),
    textImage(['Receipt', 'Paid in full by card'], 'side-3.png'),
    textImage(['Quotation valid for thirty days'], 'side-4.png'),
  ];
  const one = new Tesseract({ binary: 'tesseract', concurrency: 1, language: 'eng' });
  const sequential = [];
  for (const img of images) sequential.push(await one.recognize(img, { language: 'eng', dpi: 300 }));
  const several = new Tesseract({ binary: 'tesseract', concurrency: 3, language: 'eng' });
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, several.running)), 5);
  const parallel = await Promise.all(images.map((img) => several.recognize(img, { language: 'eng', dpi: 300 })));
  clearInterval(watch);
  assert.deepEqual(parallel, sequential);
  assert.match(parallel[1]!.text, /Delivery note 778/);
  assert.ok(peak > 1 && peak <= 3, `peak ${peak}`);
  assert.equal(several.running, 0);
});
