/**
 * Receipt extraction over the corpus's development set of scanned receipts (`<corpus>/receipts/`: files/*.jpg
 * and key/*.json with company, date, address and total as printed): per-field accuracy of the offline
 * extractor for company, date and total, their mean, the spread over receipts, and calibration (among the
 * values given with confidence ≥ 0.8, the share that is right).
 *
 * Right means: company word F1 ≥ 0.8 against the key (lower-case words, punctuation ignored), date the same
 * calendar day (keys are printed day first), total the same amount.
 *
 * Each receipt is read once through the repository's readers (OCR) and the parsed document is cached as
 * JSON under `$TMPDIR/quire-bench-cache/<sha256 of the file>.json` (`--no-cache` reads again and rewrites
 * the cache), so that runs after the first cost only the extraction.
 *
 *   node --conditions=quire-source --import tsx bench/receipts.ts [--no-cache] [--list] [--only 101,102] [--json out.json]
 *
 * `--list` prints every receipt's values (right ones marked), `QUIRE_CORPUS=/path/to/corpus` points elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FieldDefinition, ParsedDocument } from '@quire/core';
import { normaliseValue } from '@quire/fields';
import { createExtractor } from '@quire/plugin-extractor-layout';
import { CORPUS, PARSE_CACHE, RECEIPT_FIELDS, loadReaders, parseCached, type CorpusCase } from '../plugins/extractor-layout/test/corpus-cases.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const useCache = !flag('--no-cache');
const only = opt('--only')?.split(',');
const DIR = path.join(CORPUS, 'receipts');
const FIELDS: FieldDefinition[] = [RECEIPT_FIELDS.company!, RECEIPT_FIELDS.date!, RECEIPT_FIELDS.total!];

/** Lower-case words (letters and digits), punctuation dropped: "MR D.I.Y. (JOHOR)" → mr d i y johor. */
const wordsOf = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Word-multiset F1 of two strings. */
export function wordF1(got: string, want: string): number {
  const a = wordsOf(got), b = wordsOf(want);
  if (!a.length || !b.length) return 0;
  const left = new Map<string, number>();
  for (const w of b) left.set(w, (left.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of a) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      common++;
      left.set(w, n - 1);
    }
  }
  if (!common) return 0;
  const p = common / a.length, r = common / b.length;
  return (2 * p * r) / (p + r);
}

function right(field: FieldDefinition, got: unknown, want: unknown): boolean {
  if (got === null || got === undefined) return false;
  if (field.name === 'company') return wordF1(String(got), String(want)) >= 0.8;
  const a = normaliseValue(got, field, { dateOrder: 'DMY' });
  const b = normaliseValue(want, field, { dateOrder: 'DMY' });
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);
const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');

async function main() {
  const keyDir = path.join(DIR, 'key');
  if (!fs.existsSync(keyDir)) {
    console.log(`no receipts at ${DIR} (set QUIRE_CORPUS)`);
    return;
  }
  const cases: (CorpusCase & { key: Record<string, string> })[] = fs
    .readdirSync(keyDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const key = JSON.parse(fs.readFileSync(path.join(keyDir, f), 'utf8')) as Record<string, string>;
      const base = f.replace(/\.json$/, '');
      const img = fs.readdirSync(path.join(DIR, 'files')).find((x) => x.replace(/\.[^.]+$/, '') === base)!;
      return { id: base, file: path.join(DIR, 'files', img), format: path.extname(img).slice(1).toLowerCase(), kind: 'receipt' as const, expected: key, fields: FIELDS, key };
    })
    .filter((c) => !only || only.some((o) => c.id.endsWith(o)));
  // readers are loaded only when a receipt is not cached yet
  let readers: Promise<Awaited<ReturnType<typeof loadReaders>>> | undefined;
  const getReaders = () => (readers ??= loadReaders());
  const t0 = performance.now();
  const docs: { c: (typeof cases)[number]; doc: ParsedDocument }[] = [];
  let readCount = 0;
  for (const c of cases) {
    const got = await parseCached(getReaders, c, !useCache).catch((e) => {
      console.log(`parse failed ${c.id}: ${(e as Error).message}`);
      return null;
    });
    if (!got?.doc) {
      if (got) console.log(`not read: ${c.id} (reader plugins @quire/plugin-reader-image, @quire/plugin-ocr-tesseract missing?)`);
      continue;
    }
    if (!got.cached) readCount++;
    docs.push({ c, doc: got.doc });
  }
  const parseS = (performance.now() - t0) / 1000;
  const ex = createExtractor({ use: (() => undefined) as any });
  const per = new Map(FIELDS.map((f) => [f.name, { ok: 0, n: 0, nullN: 0 }]));
  const calib = { n: 0, ok: 0 };
  const bands = [0.9, 0.8, 0.6, 0.4, 0.0].map((lo) => ({ lo, n: 0, ok: 0 }));
  const perReceipt: number[] = [];
  const rows: Record<string, unknown>[] = [];
  const t1 = performance.now();
  for (const { c, doc } of docs) {
    const out = await ex.extract({ doc, chunks: [], fields: FIELDS });
    let okN = 0;
    const row: Record<string, unknown> = { id: c.id };
    const line: string[] = [];
    for (const f of FIELDS) {
      const got = out.data[f.name] ?? null;
      const conf = out.fieldResults.find((r) => r.field === f.name)?.confidence ?? 0;
      const ok = right(f, got, c.key[f.name]);
      const e = per.get(f.name)!;
      e.n++;
      if (ok) e.ok++, okN++;
      if (got === null) e.nullN++;
      if (got !== null) {
        if (conf >= 0.8) {
          calib.n++;
          if (ok) calib.ok++;
        }
        const band = bands.find((b) => conf >= b.lo)!;
        band.n++;
        if (ok) band.ok++;
      }
      row[f.name] = { got, want: c.key[f.name], confidence: conf, ok };
      line.push(`${ok ? '✓' : '✗'} ${f.name}=${JSON.stringify(got)} (${conf.toFixed(2)})${ok ? '' : ` want ${JSON.stringify(c.key[f.name])}`}`);
    }
    perReceipt.push(okN / FIELDS.length);
    rows.push(row);
    if (flag('--list')) console.log(`${pad(c.id, 12)} ${line.join(' | ')}`);
  }
  const exS = (performance.now() - t1) / 1000;
  const n = docs.length;
  console.log(`\nreceipts: ${n} of ${cases.length} (${readCount} read now, ${n - readCount} from ${PARSE_CACHE}); read ${parseS.toFixed(1)} s, extraction ${((1000 * exS) / Math.max(1, n)).toFixed(1)} ms per receipt\n`);
  console.log(`${pad('field', 10)}| ${lpad('right', 5)} | ${lpad('of', 4)} | ${lpad('accuracy', 8)} | ${lpad('null', 4)}`);
  console.log(`${'-'.repeat(10)}+${'-'.repeat(7)}+${'-'.repeat(6)}+${'-'.repeat(10)}+${'-'.repeat(6)}`);
  let sum = 0;
  for (const f of FIELDS) {
    const e = per.get(f.name)!;
    sum += e.ok / Math.max(1, e.n);
    console.log(`${pad(f.name, 10)}| ${lpad(e.ok, 5)} | ${lpad(e.n, 4)} | ${lpad((e.ok / Math.max(1, e.n)).toFixed(3), 8)} | ${lpad(e.nullN, 4)}`);
  }
  const mean = sum / FIELDS.length;
  console.log(`\nmean field accuracy: ${mean.toFixed(3)}`);
  const dist = [0, 1, 2, 3].map((k) => perReceipt.filter((x) => Math.round(x * 3) === k).length);
  const sd = Math.sqrt(perReceipt.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, n));
  console.log(`spread over receipts: 3/3 right ${dist[3]}, 2/3 ${dist[2]}, 1/3 ${dist[1]}, 0/3 ${dist[0]}; per-receipt accuracy sd ${sd.toFixed(3)}`);
  // the same figure over ten blocks of receipts shows how much it moves between samples of this size
  const blocks: number[] = [];
  for (let i = 0; i < n; i += 10) {
    const part = perReceipt.slice(i, i + 10);
    blocks.push(part.reduce((a, x) => a + x, 0) / part.length);
  }
  if (blocks.length > 1) console.log(`mean accuracy per block of 10 receipts: min ${Math.min(...blocks).toFixed(3)}, max ${Math.max(...blocks).toFixed(3)} (${blocks.map((b) => b.toFixed(2)).join(' ')})`);
  console.log(`\ncalibration: ${calib.ok} of ${calib.n} values given with confidence ≥ 0.8 are right (${pct(calib.ok, calib.n)} %, target ≥ 90 %)`);
  console.log(`by confidence: ${bands.map((b, i) => `${i ? `[${b.lo.toFixed(1)}, ${bands[i - 1]!.lo.toFixed(1)})` : `≥ ${b.lo.toFixed(1)}`}: ${b.ok}/${b.n}`).join(', ')}`);
  const json = opt('--json');
  if (json) fs.writeFileSync(json, JSON.stringify({ mean, per: Object.fromEntries(per), calib, rows }, null, 2));
}

await main();
