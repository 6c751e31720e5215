/**
 * OCR text of scanned receipts: how often each key value (company, date, total, address) appears verbatim in
 * the text of the parsed document, per OCR configuration, over the corpus's receipts (`<corpus>/receipts/`:
 * files/*.jpg and key/<name>.json).
 *
 * Each receipt is read through the real image reader with an OCR plugin created through the plugin API, as
 * the service does; nothing is cached. Verbatim: the key value is a substring of the text, case-insensitive,
 * runs of white space collapsed. Loose (for information): the same with everything but letters and digits
 * dropped from both. Also: seconds per receipt (wall clock, `--workers` receipts at once), the peak resident
 * memory of the bench and its child processes (sampled), and which receipts miss each value.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/ocr.ts \
 *     [--engine @quire/plugin-ocr-tesseract] [--psm auto,3,4,6,11] \
 *     [--options '{"json":"plugin options"}'] [--workers 2] [--only 101,102] [--limit N] [--list] [--json out.json]
 *
 * `--engine` names any OCR plugin package: its default export is created through the plugin API. `--psm` (a
 * comma list, one configuration each) sets the tesseract plugin's option `psm`; without it the plugin's
 * defaults run. `--options` adds other plugin options (JSON), to every configuration.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, pluginContext, type OcrPlugin, type ParsedDocument, type PluginDefinition, type ReaderPlugin } from '@quire/core';
import { RECEIPT_FIELDS as FIELDS, loadReceipts, loose, receiptsDir, verbatim, type Receipt as Case } from '../test/helpers/receipts.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const list = (name: string) => opt(name)?.split(',').map((s) => s.trim()).filter(Boolean);

const DIR = receiptsDir();
type Field = (typeof FIELDS)[number];
const engine = opt('--engine') ?? '@quire/plugin-ocr-tesseract';
const workers = Math.max(1, Math.min(2, Number(opt('--workers') ?? 2)));

interface Config {
  label: string;
  options: Record<string, unknown>;
}

/** Peak resident memory (kB) of this process plus its children, sampled every 100 ms from /proc. */
class RssSampler {
  peak = 0;
  private timer: NodeJS.Timeout | null = null;
  private rssOf(pid: number): number {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }
  private children(): number[] {
    try {
      return fs
        .readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  }
  sample() {
    const total = this.rssOf(process.pid) + this.children().reduce((a, p) => a + this.rssOf(p), 0);
    this.peak = Math.max(this.peak, total);
  }
  start() {
    this.peak = 0;
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }
  stop() {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}

/** The text the OCR engine itself returned for the receipt being read (the last recognition of it). */
const engineText = new AsyncLocalStorage<{ text: string }>();

async function createReader(options: Record<string, unknown>): Promise<ReaderPlugin> {
  const imageDef = (await import('@quire/plugin-reader-image')).default;
  const plugins: Record<string, unknown> = {};
  const shared = { 'ocr.concurrency': workers, 'ocr.language': 'eng' };
  const ctx = (plugin: Parameters<typeof pluginContext>[0], opts: Record<string, unknown> = {}) =>
    pluginContext(plugin, { options: opts, shared, dataDir: os.tmpdir(), get: ((kind: string) => plugins[kind]) as any, tryGet: ((kind: string) => plugins[kind]) as any });
  // the OCR plugin through a registry, as the service makes it: a router (auto) gets the engines it names in its uses
  const ocrDef = (await import(engine)).default as PluginDefinition;
  const registry = new PluginRegistry({ dataDir: os.tmpdir(), shared, options: { [`ocr:${ocrDef.name}`]: options } });
  for (const spec of new Set(['@quire/plugin-ocr-tesseract', '@quire/plugin-ocr-ppocr', engine])) await registry.load(spec, process.cwd());
  const ocr = (await registry.instantiate('ocr', ocrDef.name)) as OcrPlugin;
  // the engine's own text is kept too: what the reader's layout then loses shows as the gap between the two
  plugins.ocr = Object.assign(Object.create(ocr) as OcrPlugin, {
    recognize: async (...a: Parameters<OcrPlugin['recognize']>) => {
      const r = await ocr.recognize(...a);
      const slot = engineText.getStore();
      if (slot) slot.text = r.text;
      return r;
    },
  });
  return (await imageDef.create(ctx(imageDef))) as ReaderPlugin;
}

function loadCases(): Case[] {
  return loadReceipts(DIR!, { only: list('--only'), limit: Number(opt('--limit') ?? 0) });
}

function configs(): Config[] {
  const extra = opt('--options') ? (JSON.parse(opt('--options')!) as Record<string, unknown>) : {};
  const out: Config[] = [];
  for (const psm of list('--psm') ?? [undefined]) {
    const options: Record<string, unknown> = { ...extra };
    if (psm !== undefined) options.psm = /^\d+$/.test(psm) ? Number(psm) : psm;
    const label = psm !== undefined ? `psm ${psm}` : 'defaults';
    out.push({ label: opt('--options') ? `${label} ${opt('--options')}` : label, options });
  }
  return out;
}

interface Row {
  label: string;
  n: number;
  failed: string[];
  hits: Record<Field, { verbatim: number; loose: number; engine: number; of: number; miss: string[] }>;
  secondsPerReceipt: number;
  peakRssMb: number;
}

async function runConfig(cfg: Config, cases: Case[]): Promise<Row> {
  const reader = await createReader(cfg.options);
  const hits = Object.fromEntries(FIELDS.map((f) => [f, { verbatim: 0, loose: 0, engine: 0, of: 0, miss: [] as string[] }])) as Row['hits'];
  const failed: string[] = [];
  const rss = new RssSampler();
  rss.start();
  const t0 = performance.now();
  let next = 0;
  const work = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      let doc: ParsedDocument;
      const slot = { text: '' };
      try {
        doc = await engineText.run(slot, () => reader.read({ path: c.file, name: path.basename(c.file), format: path.extname(c.file).slice(1).toLowerCase(), size: fs.statSync(c.file).size, documentId: c.id }, { ocr: { enabled: 'auto', language: 'eng' } }));
      } catch (e) {
        failed.push(`${c.id}: ${(e as Error).message}`);
        continue;
      }
      const v = verbatim(doc.text);
      const l = loose(doc.text);
      const e = verbatim(slot.text);
      for (const f of FIELDS) {
        const want = c.key[f];
        if (!want) continue;
        const h = hits[f];
        h.of++;
        if (v.includes(verbatim(want))) h.verbatim++;
        else h.miss.push(c.id.replace(/^\D+/, ''));
        if (l.includes(loose(want))) h.loose++;
        if (e.includes(verbatim(want))) h.engine++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, cases.length) }, work));
  const seconds = (performance.now() - t0) / 1000;
  rss.stop();
  for (const f of FIELDS) hits[f].miss.sort();
  return { label: cfg.label, n: cases.length, failed, hits, secondsPerReceipt: seconds / Math.max(1, cases.length), peakRssMb: Math.round(rss.peak / 1024) };
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(0) : '-');

async function main() {
  if (!DIR) {
    console.log('no receipts in the corpus (set QUIRE_CORPUS)');
    return;
  }
  const cases = loadCases();
  console.log(`${cases.length} receipts, engine ${engine}, ${workers} at once; verbatim % in the parsed text (loose %); engine: verbatim % in the OCR engine's own text\n`);
  const header = `${'configuration'.padEnd(28)}| ${FIELDS.map((f) => f.padStart(9)).join(' | ')} | engine c/d/t/a  | s/receipt | peak RSS`;
  console.log(header);
  console.log('-'.repeat(header.length));
  const rows: Row[] = [];
  for (const cfg of configs()) {
    const row = await runConfig(cfg, cases);
    rows.push(row);
    const cells = FIELDS.map((f) => `${pct(row.hits[f].verbatim, row.hits[f].of).padStart(3)} (${pct(row.hits[f].loose, row.hits[f].of).padStart(3)})`);
    const eng = FIELDS.map((f) => pct(row.hits[f].engine, row.hits[f].of)).join('/');
    console.log(`${row.label.padEnd(28)}| ${cells.join(' | ')} | ${eng.padEnd(15)} | ${row.secondsPerReceipt.toFixed(2).padStart(9)} | ${String(row.peakRssMb).padStart(5)} MB${row.failed.length ? `  (${row.failed.length} failed)` : ''}`);
  }
  console.log('\nspread: receipts that miss each value (verbatim)');
  for (const row of rows) {
    console.log(`${row.label}:`);
    for (const f of FIELDS) console.log(`  ${f.padEnd(8)} ${row.hits[f].miss.length} missed${row.hits[f].miss.length ? ': ' + row.hits[f].miss.join(' ') : ''}`);
    for (const f of row.failed) console.log(`  failed ${f}`);
  }
  if (flag('--list') && rows.length > 1) {
    // receipts where configurations disagree on a value
    const [a, ...rest] = rows;
    for (const r of rest)
      for (const f of FIELDS) {
        const ma = new Set(a!.hits[f].miss), mr = new Set(r.hits[f].miss);
        const won = [...ma].filter((x) => !mr.has(x)), lost = [...mr].filter((x) => !ma.has(x));
        if (won.length || lost.length) console.log(`${r.label} vs ${a!.label}, ${f}: +${won.length} (${won.join(' ')}) -${lost.length} (${lost.join(' ')})`);
      }
  }
  const json = opt('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(rows, null, 2));
}

await main();
