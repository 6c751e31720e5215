/**
 * Parse benchmark through the API: the service runs as its own process (built dist when present, else the
 * TypeScript sources), every corpus file is uploaded and timed to `completed` (read → chunk → index), and
 * pdftotext -bbox-layout reads the same PDFs in the same run for comparison. Peak memory is the service
 * process's VmHWM. Then a long born-digital PDF (text-layer pages of corpus documents, drawn again with pdf-lib) end
 * to end against pdftotext, and a 1,000-page PDF (pages of a corpus report, scans included) for peak memory. Not part of the tests.
 *
 *   node --conditions=quire-source --import tsx bench/parse.ts [--long 200] [--big 1000] [--no-corpus]
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const { values: args } = parseArgs({ options: { long: { type: 'string', default: '200' }, big: { type: 'string', default: '1000' }, 'no-corpus': { type: 'boolean', default: false } } });
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
const hasCorpus = fs.existsSync(path.join(corpus, 'manifest.json')) && !args['no-corpus'];
const key = `svc_${randomBytes(20).toString('hex')}`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function startService(): Promise<{ base: string; pid: number; stop: () => void }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-'));
  const dist = path.join(root, 'server/dist/bin.js');
  const cmd = fs.existsSync(dist) ? [dist] : ['--conditions=quire-source', '--import', 'tsx', path.join(root, 'server/src/bin.ts')];
  const child = spawn(process.execPath, [...cmd, 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: key, QUIRE_LOG_LEVEL: 'warn', QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

async function parseThroughApi(base: string, name: string, bytes: Buffer): Promise<{ ms: number; pages: number; status: string }> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const up = await (await fetch(`${base}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json();
  for (;;) {
    const d = await (await fetch(`${base}/v1/documents/${up.id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    if (d.status === 'completed' || d.status === 'failed') return { ms: performance.now() - t0, pages: d.pages ?? 0, status: d.status };
    await new Promise((r) => setTimeout(r, 20));
  }
}

function pdftotextMs(file: string): number | null {
  try {
    const t0 = performance.now();
    execFileSync('pdftotext', ['-bbox-layout', file, '/dev/null'], { stdio: 'ignore' });
    return performance.now() - t0;
  } catch {
    return null;
  }
}

/** Corpus PDFs whose every page has a text layer: the born-digital run measures reading, not OCR. */
const TEXT_DONORS = ['docling__multi_page.pdf', 'docling__2305.03393v1-pg9.pdf', 'docling__amt_handbook_sample.pdf', 'docling__normal_4pages.pdf'];

async function longPdf(pages: number, file: string, donors = ['docling__redp5110_sampled.pdf']): Promise<void> {
  const out = await PDFDocument.create();
  const donorPaths = donors.map((d) => path.join(corpus, 'files', d));
  if (donorPaths.every((p) => fs.existsSync(p))) {
    const embedded = [];
    for (const p of donorPaths) embedded.push(...(await out.embedPages((await PDFDocument.load(fs.readFileSync(p))).getPages())));
    for (let i = 0; i < pages; i++) {
      const e = embedded[i % embedded.length]!;
      out.addPage([e.width, e.height]).drawPage(e);
    }
  } else {
    const font = await out.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < pages; i++) {
      const p = out.addPage([612, 792]);
      for (let l = 0; l < 45; l++) p.drawText(`Page ${i + 1} line ${l + 1}: quarterly figures for the northern region were reviewed.`, { x: 50, y: 750 - l * 15, size: 10, font });
    }
  }
  fs.writeFileSync(file, await out.save());
}

const table = (rows: (string | number)[][]) => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, j) => r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ') + (j === 0 ? '\n' + widths.map((w) => '-'.repeat(w)).join('-|-') : '')).join('\n');
};

const svc = await startService();
console.log(`service pid ${svc.pid}, ${os.cpus().length} cores\n`);
try {
  if (hasCorpus) {
    const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')).files as { id: string; path: string; format: string }[];
    const perFormat = new Map<string, { files: number; pages: number; ms: number; failed: number; pdftotextMs: number }>();
    for (const f of manifest) {
      const file = path.join(corpus, f.path);
      const r = await parseThroughApi(svc.base, f.id, fs.readFileSync(file));
      const agg = perFormat.get(f.format) ?? { files: 0, pages: 0, ms: 0, failed: 0, pdftotextMs: 0 };
      agg.files++;
      agg.pages += r.pages;
      agg.ms += r.ms;
      if (r.status !== 'completed') agg.failed++;
      if (f.format === 'pdf') agg.pdftotextMs += pdftotextMs(file) ?? 0;
      perFormat.set(f.format, agg);
    }
    const rows: (string | number)[][] = [['format', 'files', 'pages', 'failed', 'API s', 'API pages/s', 'pdftotext pages/s']];
    for (const [fmt, a] of [...perFormat].sort()) rows.push([fmt, a.files, a.pages, a.failed, (a.ms / 1000).toFixed(2), (a.pages / (a.ms / 1000)).toFixed(1), fmt === 'pdf' && a.pdftotextMs ? (a.pages / (a.pdftotextMs / 1000)).toFixed(1) : '']);
    console.log('Corpus through the API, one file at a time (upload → completed: read, OCR, chunk, index)\n' + table(rows) + '\n');
  }
  const long = Number(args.long);
  const longFile = path.join(os.tmpdir(), `quire-bench-born-digital-${long}.pdf`);
  if (!fs.existsSync(longFile)) await longPdf(long, longFile, TEXT_DONORS);
  const pt = pdftotextMs(longFile);
  const api = await parseThroughApi(svc.base, 'long.pdf', fs.readFileSync(longFile));
  const ptRate = pt ? long / (pt / 1000) : NaN;
  const apiRate = api.pages / (api.ms / 1000);
  console.log(
    `Born-digital ${long}-page PDF end to end\n` +
      table([
        ['reader', 'seconds', 'pages/s', 'ratio to pdftotext'],
        ['pdftotext -bbox-layout', pt ? (pt / 1000).toFixed(2) : 'missing', pt ? ptRate.toFixed(1) : '', '1.00'],
        ['Quire API (upload → completed)', (api.ms / 1000).toFixed(2), apiRate.toFixed(1), pt ? (apiRate / ptRate).toFixed(2) : ''],
      ]) +
      '\n',
  );
  const big = Number(args.big);
  const bigFile = path.join(os.tmpdir(), `quire-bench-long-${big}.pdf`);
  if (!fs.existsSync(bigFile)) await longPdf(big, bigFile);
  const before = peakRssMb(svc.pid);
  const b = await parseThroughApi(svc.base, 'big.pdf', fs.readFileSync(bigFile));
  const after = peakRssMb(svc.pid);
  console.log(
    `${big}-page PDF through the API\n` +
      table([
        ['status', 'pages', 'seconds', 'pages/s', 'service peak RSS before (MB)', 'service peak RSS after (MB)'],
        [b.status, b.pages, (b.ms / 1000).toFixed(1), (b.pages / (b.ms / 1000)).toFixed(1), before.toFixed(0), after.toFixed(0)],
      ]),
  );
} finally {
  svc.stop();
}
