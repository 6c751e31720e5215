/**
 * OCR engines compared on the receipts of the corpus (receipts/files/*.jpg, keys in receipts/key/*.json
 * {company,date,address,total}): the share of receipts whose field appears verbatim (case-insensitive,
 * whitespace collapsed) in the OCR text, seconds per image, memory (resident set: this process for ppocr,
 * the tesseract processes sampled every 50 ms for tesseract; at the start, after 10 images, after all), and
 * for ppocr the event loop's delay while it runs.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/compare.ts \
 *     [--engine tesseract|ppocr|both] [--limit N] [--repeat N] [--opt name=value ...] [--dump DIR]
 *
 * --opt sets a ppocr plugin option (threads=2, detMaxSide=1280, memArena=true, ...); --repeat reads the set
 * N times (memory over more images); --dump writes each engine's text of each receipt to DIR. The columns
 * "spaces aside" compare with every space removed (a reading that joins or splits words still counts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pluginContext } from '@quire/core';
import type { OcrPlugin } from '@quire/core';
import ppocrPlugin from '@quire/plugin-ocr-ppocr';
import tesseractPlugin from '@quire/plugin-ocr-tesseract';
import { loadReceipts, receiptsDir, tight, verbatim as norm } from '../../../test/helpers/receipts.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const engines = (arg('engine') ?? 'both') === 'both' ? ['tesseract', 'ppocr'] : [arg('engine')!];
const limit = Number(arg('limit') ?? Infinity);
const repeat = Number(arg('repeat') ?? 1);
const opts: Record<string, unknown> = {};
args.forEach((a, i) => {
  if (a !== '--opt') return;
  const [k, v] = args[i + 1]!.split('=');
  opts[k!] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(Number(v)) ? Number(v) : v;
});

const dir = receiptsDir();
if (!dir) {
  console.error('no receipts in the corpus (set QUIRE_CORPUS)');
  process.exit(1);
}
const FIELDS = ['company', 'date', 'address', 'total'] as const;
const receipts = loadReceipts(dir, { limit: Number.isFinite(limit) ? limit : 0 });
const files = receipts.map((r) => r.file);
const dump = arg('dump');
if (dump) fs.mkdirSync(dump, { recursive: true });

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
/** Resident memory of this process's children (tesseract), MB. */
function childrenRss(): number {
  let total = 0;
  try {
    for (const t of fs.readdirSync('/proc/self/task')) {
      for (const pid of fs.readFileSync(`/proc/self/task/${t}/children`, 'utf8').split(/\s+/).filter(Boolean)) {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) total += Number(m[1]) / 1024;
      }
    }
  } catch {
    /* a child that just ended */
  }
  return total;
}

interface Row {
  engine: string;
  hits: Record<string, number>;
  n: number;
  seconds: number[];
  rss: { start: number; at10: number; end: number; peak: number };
  loop?: { p99: number; max: number };
}

async function bench(engine: string): Promise<Row> {
  const plugin: OcrPlugin =
    engine === 'ppocr'
      ? ((await ppocrPlugin.create(pluginContext(ppocrPlugin, { options: opts }))) as OcrPlugin)
      : ((await tesseractPlugin.create(pluginContext(tesseractPlugin, { shared: { 'ocr.concurrency': 1, 'ocr.language': 'eng' } }))) as OcrPlugin);
  const own = engine === 'ppocr';
  const rss = () => (own ? mb(process.memoryUsage().rss) : Math.round(childrenRss()));
  const row: Row = { engine, hits: Object.fromEntries([...FIELDS, 'all', ...FIELDS.map((f) => `${f}~`)].map((f) => [f, 0])), n: 0, seconds: [], rss: { start: rss(), at10: 0, end: 0, peak: 0 } };
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  if (own) loop.enable();
  let count = 0;
  for (let r = 0; r < repeat; r++) {
    for (const { file, key } of receipts as { file: string; key: Record<string, string> }[]) {
      const f = path.basename(file);
      const t0 = performance.now();
      const res = await plugin.recognize(file, { language: 'eng' });
      row.seconds.push((performance.now() - t0) / 1000);
      peak = Math.max(peak, rss());
      count++;
      if (count === 10) row.rss.at10 = rss();
      if (r > 0) continue;
      const text = norm(res.text);
      if (dump) fs.writeFileSync(path.join(dump, `${engine}-${f}.txt`), res.text);
      row.n++;
      for (const k of FIELDS) if (key[k] && tight(res.text).includes(tight(key[k]))) row.hits[`${k}~`]!++;
      const hit = FIELDS.filter((k) => key[k] && text.includes(norm(key[k])));
      for (const k of hit) row.hits[k]!++;
      if (hit.length === FIELDS.length) row.hits.all!++;
    }
  }
  clearInterval(sampler);
  loop.disable();
  row.rss.end = rss();
  row.rss.peak = own ? Math.round(process.resourceUsage().maxRSS / 1024) : Math.round(peak);
  if (own) row.loop = { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  await plugin.close?.();
  return row;
}

const pct = (a: number, n: number) => `${Math.round((100 * a) / Math.max(1, n))}%`;
const quant = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const rows: Row[] = [];
for (const e of engines) {
  rows.push(await bench(e));
  console.error(`${e} done`);
}
console.log(`${files.length} receipts${repeat > 1 ? ` × ${repeat}` : ''}${Object.keys(opts).length ? `, ppocr options ${JSON.stringify(opts)}` : ''}\n`);
console.log('| engine | company | date | address | total | all four | spaces aside: company / date / address / total | s/image (first excluded: mean, p90) | RSS MB start / after 10 / end / peak |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const warm = r.seconds.slice(1);
  const mean = warm.reduce((a, b) => a + b, 0) / Math.max(1, warm.length);
  const all = Math.min(...FIELDS.map((f) => r.hits[f]!));
  console.log(
    `| ${r.engine} | ${FIELDS.map((f) => pct(r.hits[f]!, r.n)).join(' | ')} | ${pct(r.hits.all!, r.n)} | ${FIELDS.map((f) => pct(r.hits[`${f}~`]!, r.n)).join(' / ')} | ${mean.toFixed(2)}, ${quant(warm, 0.9).toFixed(2)} (first ${r.seconds[0]?.toFixed(2)}) | ${r.rss.start} / ${r.rss.at10} / ${r.rss.end} / ${r.rss.peak} |`,
  );
}
for (const r of rows) if (r.loop) console.log(`\n${r.engine}: event loop delay while running p99 ${r.loop.p99.toFixed(1)} ms, max ${r.loop.max.toFixed(1)} ms`);
