/**
 * PDF generation through the API, 20 documents in a row: seconds per document, the service's RSS and the
 * RSS of its whole process tree (the service and Chromium's processes) after each one, and how many
 * browsers run. One browser should serve every pdf (the first document pays its start) and memory should
 * stay flat; after the service stops, no Chromium process it started may be left.
 *
 *   node --conditions=quire-source --import tsx bench/generate.ts [--docs 20] [--format pdf]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { makePdf } from '../test/helpers/fixtures.js';
import { startService } from './service.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const DOCS = Number(arg('docs', '20'));
const FORMAT = arg('format', 'pdf');
const KEY = `svc_${randomBytes(20).toString('hex')}`;

/** pid → [ppid, rss kB, cmdline] of every process. */
function processes(): Map<number, { ppid: number; rssKb: number; cmd: string }> {
  const out = new Map<number, { ppid: number; rssKb: number; cmd: string }>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const rssPages = Number(fields[21]);
      out.set(Number(d), { ppid: Number(fields[1]), rssKb: (rssPages * 4096) / 1024, cmd: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Proportional set size of a process (shared pages split between the processes that map them), kB. */
function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The service's RSS, its tree's RSS (sum, shared pages counted per process: an upper bound) and its browsers. */
function sample(pid: number) {
  const all = processes();
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, info] of all) if (!tree.has(p) && tree.has(info.ppid)) (tree.add(p), (grew = true));
  }
  let treeKb = 0;
  let chromePssKb = 0;
  const chrome: number[] = [];
  const browsers: number[] = [];
  for (const p of tree) {
    const info = all.get(p);
    if (!info) continue;
    treeKb += info.rssKb;
    if (/chrom/i.test(info.cmd)) {
      chrome.push(p);
      chromePssKb += pssKb(p);
      if (!/--type=/.test(info.cmd)) browsers.push(p);
    }
  }
  return { serviceMb: (all.get(pid)?.rssKb ?? 0) / 1024, treeMb: treeKb / 1024, chromeMb: chromePssKb / 1024, browsers, chrome };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 2) => n.toFixed(d);

async function main() {
  const svc = await startService(KEY, { prefix: 'quire-bench-generate-' });
  const api = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${svc.base}${path}`, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const seenChrome = new Set<number>();
  try {
    const pdf = await makePdf([{ heading: 'INVOICE', lines: ['ACME Supplies Ltd', 'Invoice Number: INV-7731', 'Date: 2024-03-05', 'Bill To: Globex Corporation', '', 'Subtotal: $1,000.00', 'Tax: $234.50', 'Total: $1,234.50'] }]);
    const form = new FormData();
    form.append('file', new Blob([pdf]), 'invoice.pdf');
    const up = await api('/v1/documents', { method: 'POST', body: form });
    for (let i = 0; i < 600; i++) {
      if ((await api(`/v1/documents/${up.body.id}`)).body.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const x = await api('/api/extract/run', { method: 'POST', json: { document_id: up.body.id, schema_id: 'invoice' } });
    if (x.status !== 200) throw new Error(`extraction: ${JSON.stringify(x.body)}`);
    const template = '# Invoice {{invoice_number}}\n\n| Field | Value |\n|---|---|\n{{#each extraction.fields}}| {{field}} | {{value}} |\n{{/each}}\n\n## Source\n\n{{document.text}}\n';
    const before = sample(svc.pid);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${os.cpus().length} cores; format ${FORMAT}; service RSS before ${fmt(before.serviceMb, 0)} MB`);
    console.log('');
    console.log('| doc | seconds | bytes | service RSS MB | tree RSS MB | Chromium PSS MB | browsers | chromium processes |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    const rows: { s: number; serviceMb: number; treeMb: number; chromeMb: number; browsers: number }[] = [];
    const browserPids = new Set<number>();
    for (let i = 1; i <= DOCS; i++) {
      const t = performance.now();
      const r = await api('/api/generate/run', { method: 'POST', json: { template_prompt: template, output_format: FORMAT, source_extraction_id: x.body.extraction_id, source_document_ids: [up.body.id], document_name: `bench-${i}` } });
      const s = (performance.now() - t) / 1000;
      if (r.status !== 200) throw new Error(`generation ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      const m = sample(svc.pid);
      for (const p of m.chrome) seenChrome.add(p);
      for (const p of m.browsers) browserPids.add(p);
      rows.push({ s, serviceMb: m.serviceMb, treeMb: m.treeMb, chromeMb: m.chromeMb, browsers: m.browsers.length });
      console.log(`| ${i} | ${fmt(s)} | ${r.body.file_size} | ${fmt(m.serviceMb, 0)} | ${fmt(m.treeMb, 0)} | ${fmt(m.chromeMb, 0)} | ${m.browsers.length} | ${m.chrome.length} |`);
    }
    const rest = rows.slice(1);
    const half = Math.floor(rest.length / 2);
    const growth = (k: 'serviceMb' | 'treeMb' | 'chromeMb') => median(rest.slice(half).map((r) => r[k])) - median(rest.slice(0, half).map((r) => r[k]));
    console.log('');
    console.log('| figure | value |');
    console.log('|---|---:|');
    console.log(`| first document (starts the browser), s | ${fmt(rows[0]!.s)} |`);
    console.log(`| seconds per document (median of the others) | ${fmt(median(rest.map((r) => r.s)))} |`);
    console.log(`| seconds per document (mean of the others) | ${fmt(rest.reduce((a, r) => a + r.s, 0) / rest.length)} |`);
    console.log(`| peak service RSS, MB | ${fmt(Math.max(...rows.map((r) => r.serviceMb)), 0)} |`);
    console.log(`| peak tree RSS (service + Chromium), MB | ${fmt(Math.max(...rows.map((r) => r.treeMb)), 0)} |`);
    console.log(`| peak Chromium PSS (all its processes), MB | ${fmt(Math.max(...rows.map((r) => r.chromeMb)), 0)} |`);
    console.log(`| Chromium PSS growth, 2nd half vs 1st half (medians), MB | ${fmt(growth('chromeMb'), 1)} |`);
    console.log(`| service RSS growth, 2nd half vs 1st half (medians), MB | ${fmt(growth('serviceMb'), 1)} |`);
    console.log(`| tree RSS growth, 2nd half vs 1st half (medians), MB | ${fmt(growth('treeMb'), 1)} |`);
    console.log(`| distinct browser processes over the run | ${browserPids.size} |`);
  } finally {
    await svc.stop();
  }
  // Chromium's helper processes end when their browser does: give them a moment
  let left = [...seenChrome];
  for (let i = 0; i < 50 && left.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = left.filter((p) => fs.existsSync(`/proc/${p}`) && !/^\S+ \(\S+\) Z/.test(fs.readFileSync(`/proc/${p}/stat`, 'utf8')));
  }
  if (left.length) console.log(`left: ${left.map((p) => `${p} ${fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 120)}`).join('; ')}`);
  console.log(`| Chromium processes left after the service stopped | ${left.length} |`);
  if (left.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
