/**
 * Studio benchmark: what the document view of a long PDF costs the service. A 100-page born-digital PDF
 * (pdf-lib: a heading and 30 lines a page) is uploaded; then, `--runs` times each (min / median / max):
 *
 *   - GET /api/documents/:id/layout (everything the view draws boxes from): time and size;
 *   - one page image (GET .../pages/:n/image) at 110 dpi (the view's default) and at 200 dpi (the most):
 *     time, one at a time, and PNG size;
 *   - the first screen of the view: pages 1-4 asked at once (what the lazy view loads first);
 *   - the studio app itself: JS and CSS sizes as served (the service sends them uncompressed);
 *   - in chromium (when /usr/bin/chromium or QUIRE_CHROMIUM_PATH is there): the document view of the long PDF,
 *     from navigation to the first boxes drawn, page images loaded then, elements in the page, long tasks
 *     (over 50 ms) of the main thread, and the jump to the last page until its boxes are drawn.
 *
 * Not part of the tests; run one benchmark at a time (wall-clock times).
 *
 *   node --conditions=quire-source --import tsx bench/studio.ts [--pages 100] [--runs 5]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startService } from './service.js';

const { values: args } = parseArgs({ options: { pages: { type: 'string', default: '100' }, runs: { type: 'string', default: '5' } } });
const PAGES = Math.max(1, Number(args.pages));
const RUNS = Math.max(1, Number(args.runs));

async function longPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  for (let i = 1; i <= pages; i++) {
    const p = pdf.addPage([612, 792]);
    p.drawText(`Section ${i}: delivery schedule`, { x: 72, y: 720, size: 18, font: bold });
    for (let l = 0; l < 30; l++) p.drawText(`Line ${l + 1} of page ${i}: crates, ropes and lanterns for the harbour depot, item ${i * 100 + l}.`, { x: 72, y: 690 - l * 20, size: 10, font });
  }
  return pdf.save();
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s[s.length - 1]! };
};
const ms = (x: number) => `${x.toFixed(0)} ms`;
const kb = (x: number) => `${(x / 1024).toFixed(0)} KB`;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

/** The document view in chromium, signed in as a user who owns the document (its copy, uploaded with the session). */
async function browserFigures(base: string, rows: [string, string, string, string][]): Promise<void> {
  const exe = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(exe)) return void console.log(`(no chromium at ${exe}: browser figures skipped)`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, baseURL: base });
    const page = await context.newPage();
    const signup = await page.request.post('/api/auth/signup', { data: { email: `bench-${Date.now()}@example.com`, password: 'Bench-pass-42!' } });
    const csrf = ((await signup.json()) as { csrf_token: string }).csrf_token;
    const up = await page.request.post('/api/upload', { headers: { 'x-csrf-token': csrf }, multipart: { file: { name: 'long.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await longPdf(PAGES)) } } });
    const id = ((await up.json()) as { document: { id: string } }).document.id;
    for (;;) {
      const d = (await (await page.request.get(`/v1/documents/${id}`)).json()) as { status: string };
      if (d.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // long tasks of the main thread, counted from the start of every page load (plain JavaScript: tsx would add helpers)
    await page.addInitScript('window.longTasks = 0; new PerformanceObserver((l) => { window.longTasks += l.getEntries().length; }).observe({ type: "longtask", buffered: true });');
    const first: number[] = [];
    const images: number[] = [];
    const elements: number[] = [];
    const long: number[] = [];
    const jump: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      let asked = 0;
      const count = (req: { url(): string }) => void (/\/pages\/\d+\/image/.test(req.url()) && asked++);
      page.on('request', count);
      const t0 = performance.now();
      await page.goto(`/studio/documents/${id}`);
      await page.locator('.page[data-page="1"] .box').first().waitFor();
      first.push(performance.now() - t0);
      images.push(asked);
      elements.push(await page.evaluate(() => document.getElementsByTagName('*').length));
      const t1 = performance.now();
      await page.locator(`#page-${PAGES}`).scrollIntoViewIfNeeded();
      await page.locator(`.page[data-page="${PAGES}"] .box`).first().waitFor();
      jump.push(performance.now() - t1);
      long.push((await page.evaluate('window.longTasks')) as number);
      page.off('request', count);
    }
    const add = (what: string, xs: number[], fmt: (x: number) => string) => {
      const s = stats(xs);
      rows.push([what, fmt(s.min), fmt(s.median), fmt(s.max)]);
    };
    add('browser: navigation → first boxes', first, ms);
    add('browser: page images asked by then', images, String);
    add('browser: elements in the page then', elements, String);
    add(`browser: jump to page ${PAGES} → its boxes`, jump, ms);
    add('browser: long tasks (>50 ms), whole visit', long, String);
  } finally {
    await browser.close();
  }
}

const key = `svc_${randomBytes(20).toString('hex')}`;
const svc = await startService(key, { prefix: 'quire-bench-studio-' });
const auth = { authorization: `Bearer ${key}` };
try {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(await longPdf(PAGES))], { type: 'application/pdf' }), 'long.pdf');
  const up = (await (await fetch(`${svc.base}/api/upload`, { method: 'POST', body: form, headers: auth })).json()) as { document: { id: string } };
  const id = up.document.id;
  for (;;) {
    const d = (await (await fetch(`${svc.base}/v1/documents/${id}`, { headers: auth })).json()) as { status: string };
    if (d.status === 'completed') break;
    if (d.status === 'failed') throw new Error('the document failed');
    await new Promise((r) => setTimeout(r, 200));
  }
  const rows: [string, string, string, string][] = [];
  const row = (what: string, xs: number[], fmt: (x: number) => string) => {
    const s = stats(xs);
    rows.push([what, fmt(s.min), fmt(s.median), fmt(s.max)]);
  };

  const layoutTimes: number[] = [];
  const layoutSizes: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const [t, body] = await timed(async () => (await fetch(`${svc.base}/api/documents/${id}/layout`, { headers: auth })).arrayBuffer());
    layoutTimes.push(t);
    layoutSizes.push(body.byteLength);
  }
  row(`layout of ${PAGES} pages: time`, layoutTimes, ms);
  row(`layout of ${PAGES} pages: size`, layoutSizes, kb);

  for (const dpi of [110, 200]) {
    const times: number[] = [];
    const sizes: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const page = 1 + ((r * 37) % PAGES);
      const [t, body] = await timed(async () => (await fetch(`${svc.base}/api/documents/${id}/pages/${page}/image?dpi=${dpi}`, { headers: auth })).arrayBuffer());
      times.push(t);
      sizes.push(body.byteLength);
    }
    row(`page image at ${dpi} dpi: time`, times, ms);
    row(`page image at ${dpi} dpi: PNG size`, sizes, kb);
  }

  const first: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const [t] = await timed(() => Promise.all([1, 2, 3, 4].map(async (n) => (await fetch(`${svc.base}/api/documents/${id}/pages/${n}/image?dpi=${100 + r}`, { headers: auth })).arrayBuffer())));
    first.push(t);
  }
  row('first screen: pages 1-4 at once', first, ms);

  const html = await (await fetch(`${svc.base}/studio/`)).text();
  const assets = [...html.matchAll(/(?:src|href)="(\/studio\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  for (const a of assets) {
    const size = (await (await fetch(svc.base + a)).arrayBuffer()).byteLength;
    rows.push([`app ${a.endsWith('.css') ? 'CSS' : 'JS'} (as served)`, kb(size), '', '']);
  }

  await browserFigures(svc.base, rows);

  const w = [Math.max(...rows.map((r) => r[0].length)), 10, 10, 10];
  console.log(`studio, ${PAGES}-page PDF, ${RUNS} runs`);
  console.log(['', 'min', 'median', 'max'].map((h, i) => h.padEnd(w[i]!)).join(' | '));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(w[i]!)).join(' | '));
} finally {
  await svc.stop();
}
