/**
 * Parse benchmark through the API. The service runs as its own process (built dist when present, else the
 * TypeScript sources); every document is uploaded and timed to `completed` (read → chunk → index), and the
 * reference tools run on the same files in the same run. Every figure is measured `--runs` times (default 3)
 * and printed as min / median / max, one table per section:
 *
 *   1. the corpus, one file at a time, per format; PDFs against `pdftotext -bbox-layout` (born-digital PDFs
 *      apart from the scanned ones, which are OCRed);
 *   2. the 200-page born-digital bench PDF (`--long`): text-layer pages of several corpus documents drawn again
 *      with pdf-lib, against pdftotext;
 *   3. a book-like born-digital PDF (`--book`, 150 pages): the text-layer pages of one corpus book
 *      (docling__redp5110_sampled.pdf, an IBM Redbook) again and again, one set of fonts for the whole book, against
 *      pdftotext (the corpus has no PDF of 100+ pages);
 *   4. the 1,000-page PDF (`--big`, pages of the same Redbook, all of them) for peak memory: a fresh service
 *      per run; the main process's VmHWM and the sampled peak of the whole process tree (service and any
 *      child process it starts);
 *   5. the scan ratio: docling__ocr_test.pdf through the service ÷ the same page by hand, rendered at its
 *      image's own resolution (`pdfimages -list`) with pdftoppm and read by the tesseract CLI (--psm 3,
 *      OMP_THREAD_LIMIT=1); the service's first scanned page after its start (the OCR engine not yet
 *      loaded) is printed apart, the ratio is that of the page parsed again in the running service.
 *
 * Not part of the tests. Run one benchmark at a time: the figures are wall-clock times.
 *
 *   node --conditions=quire-source --import tsx bench/parse.ts [--runs 3] [--long 200] [--book 150] [--big 1000]
 *        [--formats pdf,docx] [--no-corpus] [--no-big] [--no-scan] [--json out.json]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startService as startBenchService } from './service.js';
import type { Service } from './service.js';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    long: { type: 'string', default: '200' },
    book: { type: 'string', default: '150' },
    big: { type: 'string', default: '1000' },
    formats: { type: 'string' },
    'no-corpus': { type: 'boolean', default: false },
    'no-big': { type: 'boolean', default: false },
    'no-scan': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const RUNS = Math.max(1, Number(args.runs));
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
const hasCorpus = fs.existsSync(path.join(corpus, 'manifest.json'));
const key = `svc_${randomBytes(20).toString('hex')}`;

// ---------- the service under test ----------


const procStatus = (pid: number, field: string): number => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};
const peakRssMb = (pid: number) => procStatus(pid, 'VmHWM');

/** The process and all its descendants (Linux /proc). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const t of fs.readdirSync(`/proc/${out[i]}/task`)) {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {}
  }
  return out;
}

/** Samples the resident memory of a process tree every 50 ms: the peak of the sum, and each process's own VmHWM. */
function treeSampler(pid: number) {
  let peakSum = 0;
  let peakPss = 0;
  const hwm = new Map<number, number>();
  const names = new Map<number, string>();
  const sample = () => {
    let sum = 0;
    let pss = 0;
    for (const p of processTree(pid)) {
      sum += procStatus(p, 'VmRSS');
      try {
        pss += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
      } catch {}
      hwm.set(p, Math.max(hwm.get(p) ?? 0, procStatus(p, 'VmHWM')));
      if (!names.has(p)) {
        try {
          names.set(p, fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).map((a) => path.basename(a)).join(' ').slice(0, 80));
        } catch {}
      }
    }
    peakSum = Math.max(peakSum, sum);
    peakPss = Math.max(peakPss, pss);
  };
  const timer = setInterval(sample, 50);
  sample();
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      const children = [...hwm].filter(([p, v]) => p !== pid && v > 0 && names.get(p)).map(([p, v]) => ({ pid: p, hwmMb: Math.round(v), cmd: names.get(p) ?? '' }));
      return { peakSumMb: peakSum, peakPssMb: peakPss, processes: children.length + 1, maxChildHwmMb: Math.max(0, ...children.map((c) => c.hwmMb)), children };
    },
  };
}

const startService = (): Promise<Service> => startBenchService(key, { prefix: 'quire-bench-', env: { QUIRE_PARSE_TIMEOUT_S: '1800' } });

async function parseThroughApi(base: string, name: string, bytes: Buffer): Promise<{ ms: number; pages: number; status: string }> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${base}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const up = (await res.json()) as { id: string };
  if (!res.ok) return { ms: performance.now() - t0, pages: 0, status: `refused ${res.status}` };
  for (;;) {
    const d = (await (await fetch(`${base}/v1/documents/${up.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; pages?: number };
    if (d.status === 'completed' || d.status === 'failed') return { ms: performance.now() - t0, pages: d.pages ?? 0, status: d.status };
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------- reference tools ----------

function timed(cmd: string, argv: string[], env?: NodeJS.ProcessEnv): number | null {
  try {
    const t0 = performance.now();
    execFileSync(cmd, argv, { stdio: 'ignore', env: env ? { ...process.env, ...env } : process.env });
    return performance.now() - t0;
  } catch {
    return null;
  }
}
const pdftotextMs = (file: string) => timed('pdftotext', ['-bbox-layout', file, '/dev/null']);

/** The resolution of the largest image on page 1 (`pdfimages -list`), or 300. */
function imageDpi(file: string): number {
  try {
    const lines = execFileSync('pdfimages', ['-list', '-f', '1', '-l', '1', file], { encoding: 'utf8' }).split('\n').slice(2).filter(Boolean);
    let best = { px: 0, dpi: 300 };
    for (const l of lines) {
      const c = l.trim().split(/\s+/);
      const px = Number(c[3]) * Number(c[4]);
      if (px > best.px) best = { px, dpi: Math.round(Number(c[12])) };
    }
    return best.dpi;
  } catch {
    return 300;
  }
}

/** The page rendered at `dpi` (grey, PGM) and read by the tesseract CLI on one thread, as one would by hand. */
function byHandOcrMs(file: string, dpi: number): { render: number; ocr: number } | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-ocr-'));
  try {
    const render = timed('pdftoppm', ['-r', String(dpi), '-gray', '-f', '1', '-l', '1', '-singlefile', file, path.join(dir, 'page')]);
    const ocr = timed('tesseract', [path.join(dir, 'page.pgm'), path.join(dir, 'out'), '-l', 'eng', '--psm', '3'], { OMP_THREAD_LIMIT: '1' });
    return render === null || ocr === null ? null : { render, ocr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------- bench PDFs ----------

/** Corpus PDFs whose every page has a text layer: the 200-page run measures reading, not OCR. */
const TEXT_DONORS = ['docling__multi_page.pdf', 'docling__2305.03393v1-pg9.pdf', 'docling__amt_handbook_sample.pdf', 'docling__normal_4pages.pdf'];
/** The corpus's book: an IBM Redbook (18 pages, sampled); its pages with a text layer make the book-like PDF. */
const BOOK = 'docling__redp5110_sampled.pdf';

function textLayerPages(file: string): number[] {
  const n = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1] ?? 0);
  const keep: number[] = [];
  for (let p = 1; p <= n; p++) if (execFileSync('pdftotext', ['-f', String(p), '-l', String(p), file, '-'], { encoding: 'utf8' }).trim().length > 0) keep.push(p - 1);
  return keep;
}

/** `pages` pages drawn with pdf-lib from the donors' pages (embedded once, drawn again and again); only their text-layer pages when `textOnly`. */
async function buildPdf(pages: number, file: string, donors: string[], textOnly: boolean): Promise<string> {
  const out = await PDFDocument.create();
  const donorPaths = donors.map((d) => path.join(corpus, 'files', d));
  let made: string;
  if (donorPaths.every((p) => fs.existsSync(p))) {
    const embedded = [];
    for (const p of donorPaths) {
      const src = await PDFDocument.load(fs.readFileSync(p));
      embedded.push(...(await out.embedPages(textOnly ? textLayerPages(p).map((i) => src.getPage(i)) : src.getPages())));
    }
    for (let i = 0; i < pages; i++) {
      const e = embedded[i % embedded.length]!;
      out.addPage([e.width, e.height]).drawPage(e);
    }
    made = `${embedded.length} ${textOnly ? 'text-layer ' : ''}pages of ${donors.join(', ')}, drawn again and again`;
  } else {
    const font = await out.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < pages; i++) {
      const p = out.addPage([612, 792]);
      for (let l = 0; l < 45; l++) p.drawText(`Page ${i + 1} line ${l + 1}: quarterly figures for the northern region were reviewed.`, { x: 50, y: 750 - l * 15, size: 10, font });
    }
    made = 'generated text pages (corpus absent)';
  }
  fs.writeFileSync(file, await out.save());
  return made;
}

// ---------- figures ----------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** min / median / max of the runs' values */
const mmm = (xs: (number | null | undefined)[], digits = 1) => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  if (!v.length) return '';
  if (v.length === 1) return v[0]!.toFixed(digits);
  return `${Math.min(...v).toFixed(digits)} / ${median(v).toFixed(digits)} / ${Math.max(...v).toFixed(digits)}`;
};
const table = (rows: (string | number)[][]) => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, j) => r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ') + (j === 0 ? '\n' + widths.map((w) => '-'.repeat(w)).join('-|-') : '')).join('\n');
};
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

interface Agg { files: number; pages: number; ms: number; failed: number; pdftotextMs: number }
interface Run {
  load: { start: string; end: string };
  corpus?: Record<string, Agg>;
  long?: { pages: number; ms: number; pdftotextMs: number | null; status: string };
  /** the bench PDF as the first document of a freshly started service (parse workers not yet warm) */
  cold?: { pages: number; ms: number };
  book?: { pages: number; ms: number; pdftotextMs: number | null; status: string };
  big?: { pages: number; ms: number; status: string; mainHwmMb: number; treePeakMb: number; treePssMb: number; processes: number; maxChildHwmMb: number; idleHwmMb: number; children: { pid: number; hwmMb: number; cmd: string }[] };
  /** ms: the page in the running service (its second scan); firstMs: the first scanned page after the start */
  scan?: { ms: number; firstMs: number; status: string; dpi: number; renderMs: number; ocrMs: number };
}

const manifest = hasCorpus ? (JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')).files as { id: string; path: string; format: string; text_layer_chars?: number }[]) : [];
const formats = args.formats ? new Set(args.formats.split(',')) : null;
const corpusFiles = args['no-corpus'] ? [] : manifest.filter((f) => !formats || formats.has(f.format));

const long = Number(args.long);
const longFile = path.join(os.tmpdir(), `quire-bench-born-digital-${long}.pdf`);
const longMade = await buildPdf(long, longFile + '.tmp', TEXT_DONORS, false);
fs.renameSync(longFile + '.tmp', longFile);
const bookPages = Number(args.book);
const bookFile = path.join(os.tmpdir(), `quire-bench-book-${bookPages}.pdf`);
const bookMade = await buildPdf(bookPages, bookFile + '.tmp', [BOOK], true);
fs.renameSync(bookFile + '.tmp', bookFile);
const big = Number(args.big);
const bigFile = path.join(os.tmpdir(), `quire-bench-long-${big}.pdf`);
if (!args['no-big'] && !fs.existsSync(bigFile)) await buildPdf(big, bigFile, [BOOK], false);
const scanFile = path.join(corpus, 'files/docling__ocr_test.pdf');
const doScan = !args['no-scan'] && fs.existsSync(scanFile);

const git = (() => {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 100);
  } catch {
    return '';
  }
})();
console.log(`Quire parse bench: ${root} (${git}); ${os.cpus().length} cores; ${RUNS} run(s); load at start ${load()}`);
console.log(`${long}-page bench PDF: ${longMade}\n${bookPages}-page book-like PDF: ${bookMade}\n`);

const runs: Run[] = [];
for (let r = 0; r < RUNS; r++) {
  const run: Run = { load: { start: load(), end: '' } };
  process.stderr.write(`run ${r + 1}/${RUNS} (load ${run.load.start})\n`);
  const svc = await startService();
  try {
    // the first document of a fresh service pays for its workers' first compilation: measured apart, and the
    // figures below are those of a running service
    const first = await parseThroughApi(svc.base, 'warm-up.pdf', fs.readFileSync(longFile));
    run.cold = { pages: first.pages, ms: first.ms };
    if (corpusFiles.length) {
      const perFormat: Record<string, Agg> = {};
      const add = (k: string, a: { pages: number; ms: number; ok: boolean; pt: number }) => {
        const g = (perFormat[k] ??= { files: 0, pages: 0, ms: 0, failed: 0, pdftotextMs: 0 });
        g.files++;
        g.pages += a.pages;
        g.ms += a.ms;
        g.failed += a.ok ? 0 : 1;
        g.pdftotextMs += a.pt;
      };
      for (const f of corpusFiles) {
        const file = path.join(corpus, f.path);
        const res = await parseThroughApi(svc.base, f.id, fs.readFileSync(file));
        const pt = f.format === 'pdf' ? (pdftotextMs(file) ?? 0) : 0;
        const a = { pages: res.pages, ms: res.ms, ok: res.status === 'completed', pt };
        add(f.format, a);
        if (f.format === 'pdf') add((f.text_layer_chars ?? 0) > 0 ? 'pdf born-digital' : 'pdf scanned (OCR)', a);
      }
      run.corpus = perFormat;
    }
    const ptLong = pdftotextMs(longFile);
    const apiLong = await parseThroughApi(svc.base, 'long.pdf', fs.readFileSync(longFile));
    run.long = { pages: apiLong.pages, ms: apiLong.ms, pdftotextMs: ptLong, status: apiLong.status };
    const ptBook = pdftotextMs(bookFile);
    const apiBook = await parseThroughApi(svc.base, 'book.pdf', fs.readFileSync(bookFile));
    run.book = { pages: apiBook.pages, ms: apiBook.ms, pdftotextMs: ptBook, status: apiBook.status };
    if (doScan) {
      const dpi = imageDpi(scanFile);
      const hand = byHandOcrMs(scanFile, dpi);
      const first = await parseThroughApi(svc.base, 'scan.pdf', fs.readFileSync(scanFile));
      const s = await parseThroughApi(svc.base, 'scan-again.pdf', fs.readFileSync(scanFile));
      if (hand) run.scan = { ms: s.ms, firstMs: first.ms, status: [...new Set([first.status, s.status])].join(','), dpi, renderMs: hand.render, ocrMs: hand.ocr };
    }
  } finally {
    await svc.stop();
  }
  if (!args['no-big']) {
    // a fresh service: its high-water mark is this document's alone
    const fresh = await startService();
    try {
      const idle = peakRssMb(fresh.pid);
      const sampler = treeSampler(fresh.pid);
      const b = await parseThroughApi(fresh.base, 'big.pdf', fs.readFileSync(bigFile));
      const tree = sampler.stop();
      run.big = { pages: b.pages, ms: b.ms, status: b.status, mainHwmMb: peakRssMb(fresh.pid), treePeakMb: tree.peakSumMb, treePssMb: tree.peakPssMb, processes: tree.processes, maxChildHwmMb: tree.maxChildHwmMb, idleHwmMb: idle, children: tree.children };
    } finally {
      await fresh.stop();
    }
  }
  run.load.end = load();
  runs.push(run);
}

// ---------- report ----------

const loads = runs.map((r, i) => `run ${i + 1}: ${r.load.start} → ${r.load.end}`).join('; ');
console.log(`figures: min / median / max over ${RUNS} run(s); load average (1/5/15 min) ${loads}\n`);

if (runs[0]!.corpus) {
  const keys = Object.keys(runs[0]!.corpus).sort();
  const rows: (string | number)[][] = [['format', 'files', 'pages', 'failed (max)', 'API s', 'API pages/s', 'pdftotext pages/s', 'ratio to pdftotext']];
  for (const k of keys) {
    const per = runs.map((r) => r.corpus![k]!);
    const isPdf = k.startsWith('pdf');
    rows.push([
      k,
      per[0]!.files,
      per[0]!.pages,
      Math.max(...per.map((a) => a.failed)),
      mmm(per.map((a) => a.ms / 1000), 2),
      mmm(per.map((a) => a.pages / (a.ms / 1000))),
      isPdf ? mmm(per.map((a) => (a.pdftotextMs ? a.pages / (a.pdftotextMs / 1000) : null))) : '',
      isPdf ? mmm(per.map((a) => (a.pdftotextMs ? a.pdftotextMs / a.ms : null)), 2) : '',
    ]);
  }
  console.log('Corpus through the API, one file at a time (upload → completed: read, OCR, chunk, index); pdftotext -bbox-layout on the same PDFs\n' + table(rows) + '\n');
}

for (const [name, label, made] of [
  ['long', `Born-digital ${long}-page bench PDF`, longMade],
  ['book', `Book-like born-digital ${bookPages}-page PDF`, bookMade],
] as const) {
  const per = runs.map((r) => r[name]!);
  const statuses = [...new Set(per.map((p) => p.status))].join(',');
  console.log(
    `${label} end to end (${made}; status ${statuses})\n` +
      table([
        ['reader', 'seconds', 'pages/s', 'ratio to pdftotext'],
        ['pdftotext -bbox-layout', mmm(per.map((p) => (p.pdftotextMs ?? NaN) / 1000), 2), mmm(per.map((p) => (p.pdftotextMs ? p.pages / (p.pdftotextMs / 1000) : null))), '1.00'],
        ['Quire API (upload → completed)', mmm(per.map((p) => p.ms / 1000), 2), mmm(per.map((p) => p.pages / (p.ms / 1000))), mmm(per.map((p) => (p.pdftotextMs ? p.pdftotextMs / p.ms : null)), 2)],
        ...(name === 'long'
          ? [['Quire API, first document after start', mmm(runs.map((r) => r.cold!.ms / 1000), 2), mmm(runs.map((r) => r.cold!.pages / (r.cold!.ms / 1000))), mmm(runs.map((r, i) => (per[i]!.pdftotextMs ? per[i]!.pdftotextMs! / r.cold!.ms : null)), 2)]]
          : []),
      ]) +
      '\n',
  );
}

if (runs[0]!.big) {
  const per = runs.map((r) => r.big!);
  console.log(
    `${big}-page PDF through the API, a fresh service per run (status ${[...new Set(per.map((p) => p.status))].join(',')}, ${per[0]!.pages} pages)\n` +
      table([
        ['seconds', 'pages/s', 'idle service RSS (MB)', 'service peak RSS, VmHWM (MB)', 'process tree peak RSS sum, sampled (MB)', 'process tree peak PSS sum, sampled (MB)', 'processes', 'largest child VmHWM (MB)'],
        [mmm(per.map((p) => p.ms / 1000)), mmm(per.map((p) => p.pages / (p.ms / 1000))), mmm(per.map((p) => p.idleHwmMb), 0), mmm(per.map((p) => p.mainHwmMb), 0), mmm(per.map((p) => p.treePeakMb), 0), mmm(per.map((p) => p.treePssMb), 0), mmm(per.map((p) => p.processes), 0), mmm(per.map((p) => p.maxChildHwmMb), 0)],
      ]) +
      `\nchild processes of the service (last run, VmHWM): ${per.at(-1)!.children.map((c) => `${c.cmd} ${c.hwmMb} MB`).join('; ') || 'none'}` +
      '\n',
  );
}

if (runs[0]!.scan) {
  const per = runs.map((r) => r.scan!);
  console.log(
    `Scanned page docling__ocr_test.pdf (image ${per[0]!.dpi} dpi; status ${[...new Set(per.map((p) => p.status))].join(',')})\n` +
      table([
        ['by hand: pdftoppm -r ' + per[0]!.dpi + ' -gray (s)', 'tesseract --psm 3, OMP_THREAD_LIMIT=1 (s)', 'by hand total (s)', 'Quire API (s)', 'ratio API ÷ by hand', 'first scan after start (s)', 'its ratio'],
        [
          mmm(per.map((p) => p.renderMs / 1000), 2),
          mmm(per.map((p) => p.ocrMs / 1000), 2),
          mmm(per.map((p) => (p.renderMs + p.ocrMs) / 1000), 2),
          mmm(per.map((p) => p.ms / 1000), 2),
          mmm(per.map((p) => p.ms / (p.renderMs + p.ocrMs)), 2),
          mmm(per.map((p) => p.firstMs / 1000), 2),
          mmm(per.map((p) => p.firstMs / (p.renderMs + p.ocrMs)), 2),
        ],
      ]) +
      '\n',
  );
}

if (args.json) fs.writeFileSync(args.json, JSON.stringify({ root, git, cores: os.cpus().length, longMade, bookMade, runs }, null, 2));
