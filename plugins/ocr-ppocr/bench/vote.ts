/**
 * The per-character vote between readings of the top lines of each receipt (voteChars), measured over all the
 * corpus's receipts: how often the company, date and total appear verbatim in PP-OCR's text with no vote and
 * with each combination of readings, and which receipts each combination wins and loses.
 *
 * Each receipt is read once: PP-OCR's boxes with, for the boxes of the first `--top` lines, one more reading per
 * variant of VARIANTS (and with `--tesseract`, tesseract's reading of each such box's crop, `--psm 7`, scaled to
 * 48 pixels high with a quarter of its height of margin). They are kept in `--cache DIR`; the combinations are
 * then voted here without running the models again. The spread is over the ten blocks of ten receipts.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/vote.ts \
 *     [--top 8] [--tesseract] [--only 155,159] [--cache DIR] [--print]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, bundledModels, groupLines, lineRows, spacedBox, voteChars } from '@quire/plugin-ocr-ppocr';
import type { DecodedBox, Variant } from '@quire/plugin-ocr-ppocr';
import { loadReceipts, receiptsDir, verbatim } from '../../../test/helpers/receipts.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const TOP = Number(arg('top') ?? 8);
const withTesseract = args.includes('--tesseract');
const cacheDir = arg('cache') ?? path.join(os.tmpdir(), 'quire-vote');
fs.mkdirSync(cacheDir, { recursive: true });

/** the variants every top box is read at (the order of `alts`) */
const VARIANTS: { name: string; v: Variant }[] = [
  { name: 'stretch', v: { tone: 'stretch' } },
  { name: 'binarise', v: { tone: 'binarise' } },
  { name: 'w1.3', v: { widen: 1.3 } },
  { name: 'w0.8', v: { widen: 0.8 } },
  { name: 'tall1.3', v: { tall: 1.3 } },
  { name: 'w1.5', v: { widen: 1.5 } },
];

const dir = receiptsDir();
if (!dir) {
  console.error('no receipts in the corpus (set QUIRE_CORPUS)');
  process.exit(1);
}
const receipts = loadReceipts(dir, { only: arg('only')?.split(',') });
type Box = DecodedBox & { alts?: string[][]; tess?: string };
const boxesFile = path.join(cacheDir, `boxes-${TOP}-${VARIANTS.map((v) => v.name).join(',')}.json`);
const cache: Record<string, Box[]> = fs.existsSync(boxesFile) ? JSON.parse(fs.readFileSync(boxesFile, 'utf8')) : {};
/** tesseract's readings of each receipt's top boxes, in the order of its boxes that have other readings */
const tessFile = path.join(cacheDir, `tesseract-${TOP}.json`);
const tessCache: Record<string, string[]> = fs.existsSync(tessFile) ? JSON.parse(fs.readFileSync(tessFile, 'utf8')) : {};
// --cached: only the receipts already read (another run may be reading the rest)
const cachedOnly = args.includes('--cached');
const engine = new Ppocr({ ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow: RETRY_BELOW, retryWidths: RETRY_WIDTHS });
const crop = path.join(cacheDir, `box-${process.pid}.png`);

function tesseract(file: string): string {
  const out = execFileSync('tesseract', [file, 'stdout', '--psm', '7', '-l', 'eng'], { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'pipe', 'ignore'] });
  return out.replace(/\s+/g, ' ').trim();
}

let readMs = 0;
let read = 0;
for (const r of cachedOnly ? receipts.filter((x) => cache[path.basename(x.file)]) : receipts) {
  const f = path.basename(r.file);
  if (!cache[f]) {
    const t0 = performance.now();
    cache[f] = await engine.decodedBoxes(r.file, { vote: { lines: TOP, variants: VARIANTS.map((v) => v.v), tieBelow: 0 }, unvoted: true });
    readMs += performance.now() - t0;
    read++;
    fs.writeFileSync(boxesFile, JSON.stringify(cache));
  }
  if (withTesseract && !tessCache[f]) {
    const img = await loadImage(fs.readFileSync(r.file));
    const read: string[] = [];
    for (const b of cache[f]!) {
      if (!b.alts) continue;
      const bb = b.bbox;
      const pad = bb.height * 0.25;
      const x = Math.max(0, bb.x - pad);
      const y = Math.max(0, bb.y - pad);
      const w = Math.min(img.width, bb.x + bb.width + pad) - x;
      const h = Math.min(img.height, bb.y + bb.height + pad) - y;
      const k = 48 / bb.height;
      const c = createCanvas(Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k)));
      const g = c.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, c.width, c.height);
      g.drawImage(img, x, y, w, h, 0, 0, c.width, c.height);
      fs.writeFileSync(crop, c.toBuffer('image/png'));
      read.push(tesseract(crop));
    }
    tessCache[f] = read;
    fs.writeFileSync(tessFile, JSON.stringify(tessCache));
  }
  if (tessCache[f]) {
    let k = 0;
    for (const b of cache[f]!) if (b.alts) b.tess = tessCache[f]![k++];
  }
}
if (cachedOnly) receipts.splice(0, receipts.length, ...receipts.filter((x) => cache[path.basename(x.file)]));
await engine.close();
if (read) console.log(`read ${read} receipts now: ${(readMs / read / 1000).toFixed(2)} s each with ${VARIANTS.length} variants of the top ${TOP} lines`);

const FIELDS = ['company', 'date', 'total'] as const;
type Combo = { name: string; use: number[]; tess: boolean; tieBelow: number; lines: number };

function text(boxes: Box[], c: Combo | null): string {
  const top = new Set(c ? lineRows(boxes.map((b) => b.bbox)).slice(0, c.lines).flat() : []);
  const voted = boxes.map((b, i) => {
    if (!c || !top.has(i) || !b.alts) return b;
    const others = c.use.map((k) => b.alts![k]!);
    if (c.tess && b.tess !== undefined) others.push([...b.tess.replace(/\s+/g, '')]);
    return { ...b, chars: voteChars(b.chars, others, { tieBelow: c.tieBelow }) };
  });
  return groupLines(voted.map((d) => spacedBox(d))).map((l) => l.text).join('\n');
}

function score(c: Combo | null) {
  const hit: Record<string, Set<string>> = Object.fromEntries(FIELDS.map((f) => [f, new Set<string>()]));
  for (const r of receipts) {
    const t = verbatim(text(cache[path.basename(r.file)]!, c));
    for (const f of FIELDS) if (r.key[f] && t.includes(verbatim(r.key[f]!))) hit[f]!.add(r.id);
  }
  return hit;
}

const spread = (ids: Set<string>) => {
  const blocks: number[] = [];
  for (let i = 0; i < receipts.length; i += 10) blocks.push(receipts.slice(i, i + 10).filter((r) => ids.has(r.id)).length / receipts.slice(i, i + 10).length);
  const s = [...blocks].sort((a, b) => a - b);
  const med = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  return `${Math.min(...s).toFixed(1)}/${med.toFixed(2)}/${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2)}`;
};

const base = score(null);
const combos: Combo[] = [];
const subsets = (n: number, k: number): number[][] => (k === 0 ? [[]] : n < k ? [] : [...subsets(n - 1, k - 1).map((s) => [...s, n - 1]), ...subsets(n - 1, k)]);
const only = arg('combos');
for (const lines of [TOP, 3])
  for (const tieBelow of [0, 0.9])
    for (const tess of withTesseract ? [false, true] : [false])
      for (const k of [1, 2, 3, 4])
        for (const use of subsets(VARIANTS.length, k)) {
          if (tess ? use.length + 2 < 3 : use.length + 1 < 3) continue;
          const name = `${[...use.map((i) => VARIANTS[i]!.name), ...(tess ? ['tesseract'] : [])].join('+')} lines ${lines} tie<${tieBelow}`;
          if (!only || name.includes(only)) combos.push({ name, use, tess, tieBelow, lines });
        }
console.log(`${receipts.length} receipts; verbatim in PP-OCR's text, count (min/median/mean over blocks of 10); +won -lost against no vote`);
const row = (name: string, h: Record<string, Set<string>>) =>
  `${name.padEnd(52)} ${FIELDS.map((f) => {
    const won = [...h[f]!].filter((x) => !base[f]!.has(x)).length;
    const lost = [...base[f]!].filter((x) => !h[f]!.has(x)).length;
    const ids = (v: string[]) => (args.includes('--ids') && v.length ? `(${v.map((x) => x.replace(/^\D+/, '')).join(' ')})` : '');
    return `${f} ${String(h[f]!.size).padStart(3)} (${spread(h[f]!)}) +${won}${ids([...h[f]!].filter((x) => !base[f]!.has(x)))} -${lost}${ids([...base[f]!].filter((x) => !h[f]!.has(x)))}`;
  }).join(' | ')}`;
console.log(row('no vote', base));
const results = combos.map((c) => ({ c, h: score(c) }));
results.sort((a, b) => b.h.company!.size - a.h.company!.size || b.h.total!.size + b.h.date!.size - a.h.total!.size - a.h.date!.size);
for (const { c, h } of results.slice(0, Number(arg('show') ?? 40))) console.log(row(c.name, h));
if (args.includes('--print')) {
  const best = results[0]!;
  for (const r of receipts) {
    const f = path.basename(r.file);
    const a = base.company!.has(r.id);
    const b = best.h.company!.has(r.id);
    if (a && b) continue;
    console.log(`\n${r.id} company "${r.key.company}" no vote ${a ? 'found' : 'missed'}, ${best.c.name} ${b ? 'found' : 'missed'}`);
    const boxes = cache[f]!;
    for (const i of lineRows(boxes.map((x) => x.bbox)).slice(0, 4).flat()) {
      const x = boxes[i]!;
      console.log(`  ppocr ${x.chars.map((c) => c.text).join('')}`);
      x.alts?.forEach((alt, k) => console.log(`  ${VARIANTS[k]!.name.padEnd(8)} ${alt.join('')}`));
      if (x.tess !== undefined) console.log(`  tess     ${x.tess}`);
    }
  }
}

// --cost N: CPU time (user + system of this process, onnxruntime's threads included) of recognising each of the
// first N receipts with no vote and with the vote `--cost-variants` (names of VARIANTS joined by +) on the top
// `--top` lines, the two alternating
const costN = Number(arg('cost') ?? 0);
if (costN > 0) {
  const names = (arg('cost-variants') ?? 'stretch+binarise+tall1.3').split('+');
  const variants = names.map((n) => VARIANTS.find((v) => v.name === n)!.v);
  const tieBelow = Number(arg('cost-tie') ?? 0.9);
  const off = new Ppocr({ ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow: RETRY_BELOW, retryWidths: RETRY_WIDTHS });
  const costLines = Number(arg('cost-lines') ?? TOP);
  const on = new Ppocr({ ...off.cfg, vote: { lines: costLines, variants, tieBelow } });
  const cpu = async (e: Ppocr, file: string) => {
    const t = process.cpuUsage();
    await e.recognize(file, { language: 'eng' });
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  };
  await cpu(off, receipts[0]!.file);
  await cpu(on, receipts[0]!.file);
  const a: number[] = [];
  const b: number[] = [];
  for (const [i, r] of receipts.slice(0, costN).entries()) {
    if (i % 2) {
      b.push(await cpu(on, r.file));
      a.push(await cpu(off, r.file));
    } else {
      a.push(await cpu(off, r.file));
      b.push(await cpu(on, r.file));
    }
  }
  const stats = (v: number[]) => {
    const s = [...v].sort((x, y) => x - y);
    return `min ${s[0]!.toFixed(0)} median ${s[Math.floor(s.length / 2)]!.toFixed(0)} mean ${(s.reduce((x, y) => x + y, 0) / s.length).toFixed(0)} ms`;
  };
  const extra = a.map((x, i) => b[i]! - x);
  console.log(`\nCPU per receipt over ${a.length} receipts: no vote ${stats(a)}; vote (${names.join('+')}, top ${costLines} lines, tie<${tieBelow}) ${stats(b)}; added ${stats(extra)}`);
  await Promise.all([off.close(), on.close()]);
}
