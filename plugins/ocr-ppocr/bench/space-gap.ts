/**
 * The word-space rule (ctcWords: a space where the gap between two recognised characters is more than k
 * times the box's typical gap, or where the recogniser gave a space probability p on a blank step between
 * them) measured on the receipts of the corpus for several k: the share of receipts
 * whose company, date, address and total appear verbatim (as bench/compare.ts counts them: case-insensitive,
 * whitespace collapsed) in the text, and the receipts each k wins and loses against the recogniser's own
 * spaces only (k = ∞). Then, at the default k and p, which gaps are spaces (`--metrics`: mono, the k rule
 * alone; proportional, the glyph-width rule alone; both, the default; see ctcWords) and the glyph-width
 * threshold (`--excess`, thousandths of an em). The models run once per receipt; --cache FILE keeps the decoded boxes for the next run.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/space-gap.ts \
 *     [--limit N] [--cache FILE] [--retry-below 0.8] [--k 1.4,1.6,...] [--p 0.1,0.2,...] [--metrics mono,proportional,both] [--excess 150,250,...]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, SPACE_EXCESS, SPACE_GAP, SPACE_PROB, bundledModels, groupLines, spacedBox } from '@quire/plugin-ocr-ppocr';
import type { DecodedBox, GapOptions } from '@quire/plugin-ocr-ppocr';
import { loadReceipts, receiptsDir, tight, verbatim as norm } from '../../../test/helpers/receipts.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const limit = Number(arg('limit') ?? Infinity);
const cache = arg('cache');
/** the recogniser's retry of doubtful boxes at other widths (the plugin's option retryBelow) */
const retryBelow = Number(arg('retry-below') ?? RETRY_BELOW);
const ks = (arg('k') ?? `1.2,1.3,1.4,1.5,1.6,1.7,1.8,2,2.2,2.5,${SPACE_GAP}`)
  .split(',')
  .map(Number)
  .filter((v, i, a) => a.indexOf(v) === i)
  .sort((a, b) => a - b);

const ps = (arg('p') ?? `0.05,0.1,0.2,0.3,0.5,${SPACE_PROB}`)
  .split(',')
  .map(Number)
  .filter((v, i, a) => a.indexOf(v) === i)
  .sort((a, b) => a - b);

const metricsList = (arg('metrics') ?? 'mono,proportional,both').split(',') as NonNullable<GapOptions['metrics']>[];
const excesses = (arg('excess') ?? `150,200,250,300,350,${SPACE_EXCESS}`)
  .split(',')
  .map(Number)
  .filter((v, i, a) => a.indexOf(v) === i)
  .sort((a, b) => a - b);

const dir = receiptsDir();
if (!dir) {
  console.error('no receipts in the corpus (set QUIRE_CORPUS)');
  process.exit(1);
}
const FIELDS = ['company', 'date', 'address', 'total'] as const;
const receipts = loadReceipts(dir, { limit: Number.isFinite(limit) ? limit : 0 });
/** receipts by the image's file name (the cache's keys) */
const files = receipts.map((r) => path.basename(r.file));

let decoded: Record<string, DecodedBox[]> = {};
if (cache && fs.existsSync(cache)) decoded = JSON.parse(fs.readFileSync(cache, 'utf8')) as Record<string, DecodedBox[]>;
const todo = files.filter((f) => !decoded[f]);
if (todo.length) {
  const ocr = new Ppocr({ ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow, retryWidths: RETRY_WIDTHS });
  for (const f of todo) decoded[f] = await ocr.decodedBoxes(path.join(dir, 'files', f));
  await ocr.close();
  if (cache) fs.writeFileSync(cache, JSON.stringify(decoded));
}

const keys = Object.fromEntries(receipts.map((r) => [path.basename(r.file), r.key as Record<string, string>]));
/** per receipt and field: found verbatim */
function hits(k: number, p = Infinity, opts: GapOptions = {}): Record<string, Record<string, boolean>> {
  return Object.fromEntries(
    files.map((f) => {
      const text = norm(
        groupLines(decoded[f]!.map((d) => spacedBox(d, k, p, opts)))
          .map((l) => l.text)
          .join('\n'),
      );
      return [f, Object.fromEntries(FIELDS.map((name) => [name, !!keys[f]![name] && text.includes(norm(keys[f]![name]!))]))];
    }),
  );
}
const pct = (a: number) => `${Math.round((100 * a) / Math.max(1, files.length))}%`;
const base = hits(Infinity);
const aside = FIELDS.map((name) => files.filter((f) => {
  const text = tight(groupLines(decoded[f]!.map((d) => spacedBox(d, Infinity, Infinity))).map((l) => l.text).join(''));
  return !!keys[f]![name] && text.includes(tight(keys[f]![name]!));
}).length);
console.log(`${files.length} receipts; spaces aside (the ceiling of any space rule): ${FIELDS.map((n, i) => `${n} ${pct(aside[i]!)}`).join(', ')}\n`);
console.log('| k | p | company | date | address | total | won / lost against k = p = ∞ (company, date, address, total) |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const show = (v: number) => (v === Infinity ? '∞' : String(v));
for (const p of [Infinity, ...ps]) {
  for (const k of [Infinity, ...ks]) {
    const h = hits(k, p);
    const count = (name: string) => files.filter((f) => h[f]![name]).length;
    const diff = FIELDS.map((name) => `+${files.filter((f) => h[f]![name] && !base[f]![name]).length}/−${files.filter((f) => !h[f]![name] && base[f]![name]).length}`).join(', ');
    console.log(`| ${show(k)} | ${show(p)}${k === SPACE_GAP && p === SPACE_PROB ? ' (default)' : ''} | ${FIELDS.map((n) => pct(count(n))).join(' | ')} | ${diff} |`);
  }
}

console.log(`\nAt k = ${SPACE_GAP}, p = ${SPACE_PROB}: the advance widths expected and the proportional threshold (against mono, the rule before proportional type)\n`);
console.log('| metrics | excess | company | date | address | total | won / lost against mono |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const mono = hits(SPACE_GAP, SPACE_PROB, { metrics: 'mono' });
for (const metrics of metricsList) {
  for (const excess of metrics === 'mono' ? [SPACE_EXCESS] : excesses) {
    const h = hits(SPACE_GAP, SPACE_PROB, { metrics, excess });
    const count = (name: string) => files.filter((f) => h[f]![name]).length;
    const diff = FIELDS.map((name) => `+${files.filter((f) => h[f]![name] && !mono[f]![name]).length}/−${files.filter((f) => !h[f]![name] && mono[f]![name]).length}`).join(', ');
    console.log(`| ${metrics} | ${metrics === 'mono' ? '–' : excess}${metrics === 'both' && excess === SPACE_EXCESS ? ' (default)' : ''} | ${FIELDS.map((n) => pct(count(n))).join(' | ')} | ${diff} |`);
  }
}
