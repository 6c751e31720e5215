/**
 * PDF quality through the API: every corpus PDF is uploaded to a service started here (built dist when
 * present, else the TypeScript sources) and, once `completed`, read back (GET /v1/documents/:id/content):
 * pages, word F1 / precision / recall of the document text against the markdown ground truth where the
 * corpus has one (the measure of plugins/reader-pdf/test/f1.ts), the chunks by type (table chunks apart),
 * and the form fields when the document's metadata exposes them (POST /api/pdf-to-json: any metadata key
 * about fields; blocks with a key/value are counted beside). Prints a table; `--json out.json` saves it.
 * Not part of the tests.
 *
 *   node --conditions=quire-source --import tsx bench/pdf-quality.ts [--json out.json] [--only id,id]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startService as startBenchService } from './service.js';
import type { Service } from './service.js';
import { stripMarkdown, wordF1 } from '../plugins/reader-pdf/test/f1.js';

const { values: args } = parseArgs({ options: { json: { type: 'string' }, only: { type: 'string' } } });
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
if (!fs.existsSync(path.join(corpus, 'manifest.json'))) {
  console.error(`no corpus at ${corpus} (QUIRE_CORPUS)`);
  process.exit(2);
}
interface Entry { id: string; path: string; format: string; category: string; pages: number; text_layer_chars?: number; ground_truth?: { path: string | null; kind: string }[] }
const only = args.only ? new Set(args.only.split(',')) : null;
const pdfs = (JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')).files as Entry[]).filter((f) => f.format === 'pdf' && (!only || only.has(f.id)));
const key = `svc_${randomBytes(20).toString('hex')}`;
const auth = { authorization: `Bearer ${key}` };


const startService = (): Promise<Service> => startBenchService(key, { prefix: 'quire-quality-' });

const upload = (base: string, url: string, name: string, bytes: Buffer) => {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  return fetch(`${base}${url}`, { method: 'POST', headers: auth, body: form });
};

/** Metadata keys that tell about form fields: their count (an array's length, a number, an object's keys). */
function formFieldsIn(meta: Record<string, unknown> | undefined): number | null {
  if (!meta) return null;
  let found: number | null = null;
  for (const [k, v] of Object.entries(meta)) {
    if (!/field|acroform|form/i.test(k)) continue;
    const n = Array.isArray(v) ? v.length : typeof v === 'number' ? v : v && typeof v === 'object' ? Object.keys(v).length : null;
    if (n !== null) found = Math.max(found ?? 0, n);
  }
  return found;
}

interface Row {
  id: string;
  category: string;
  status: string;
  seconds: number;
  pages: number;
  expectedPages: number;
  truth: boolean;
  f1?: number;
  precision?: number;
  recall?: number;
  chunks: number;
  tableChunks: number;
  chunkTypes: Record<string, number>;
  formFields: number | null;
  kvBlocks: number | null;
  jsonTables: number | null;
}

const git = (() => {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 100);
  } catch {
    return '';
  }
})();
const svc = await startService();
const rows: Row[] = [];
try {
  for (const f of pdfs) {
    const file = path.join(corpus, f.path);
    const bytes = fs.readFileSync(file);
    const t0 = performance.now();
    const up = (await (await upload(svc.base, '/v1/documents', f.id, bytes)).json()) as { id: string };
    let d: { status: string; pages?: number };
    for (;;) {
      d = (await (await fetch(`${svc.base}/v1/documents/${up.id}`, { headers: auth })).json()) as { status: string; pages?: number };
      if (d.status === 'completed' || d.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    const row: Row = { id: f.id, category: f.category, status: d.status, seconds, pages: d.pages ?? 0, expectedPages: f.pages, truth: false, chunks: 0, tableChunks: 0, chunkTypes: {}, formFields: formFieldsIn(d as Record<string, unknown>), kvBlocks: null, jsonTables: null };
    if (d.status === 'completed') {
      const c = (await (await fetch(`${svc.base}/v1/documents/${up.id}/content?response=full`, { headers: auth })).json()) as { text?: string; chunks?: { type?: string }[] };
      const chunks = (c.chunks ?? []) as { type?: string }[];
      row.chunks = chunks.length;
      for (const ch of chunks) row.chunkTypes[ch.type ?? '?'] = (row.chunkTypes[ch.type ?? '?'] ?? 0) + 1;
      row.tableChunks = row.chunkTypes.table ?? 0;
      const gt = (f.ground_truth ?? []).find((g) => g.path && g.kind === 'markdown');
      if (gt) {
        const s = wordF1(c.text ?? '', stripMarkdown(fs.readFileSync(path.join(corpus, gt.path!), 'utf8')));
        Object.assign(row, { truth: true, f1: s.f1, precision: s.precision, recall: s.recall });
      }
    }
    // the structured conversion carries the document's metadata
    const j = await upload(svc.base, '/api/pdf-to-json', f.id, bytes);
    if (j.ok) {
      const body = (await j.json()) as { metadata?: Record<string, unknown>; pages?: { blocks?: { metadata?: { key?: unknown } }[] }[]; tables?: unknown[] };
      const n = formFieldsIn(body.metadata);
      if (n !== null) row.formFields = Math.max(row.formFields ?? 0, n);
      row.kvBlocks = (body.pages ?? []).reduce((s, p) => s + (p.blocks ?? []).filter((b) => b.metadata?.key !== undefined).length, 0);
      row.jsonTables = body.tables?.length ?? 0;
    }
    rows.push(row);
    process.stderr.write(`${f.id}: ${row.status} ${seconds.toFixed(2)} s\n`);
  }
} finally {
  await svc.stop();
}

const table = (t: (string | number)[][]) => {
  const widths = t[0]!.map((_, i) => Math.max(...t.map((r) => String(r[i]).length)));
  return t.map((r, j) => r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ') + (j === 0 ? '\n' + widths.map((w) => '-'.repeat(w)).join('-|-') : '')).join('\n');
};
const f3 = (x: number | undefined) => (x === undefined ? '' : x.toFixed(3));
console.log(`PDF quality through the API: ${root} (${git}); load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
console.log(
  table([
    ['file', 'category', 'status', 's', 'pages', 'word F1', 'P', 'R', 'chunks', 'table chunks', 'tables (pdf-to-json)', 'form fields (metadata)', 'key/value blocks'],
    ...rows.map((r) => [r.id, r.category.slice(0, 40), r.status, r.seconds.toFixed(2), r.pages === r.expectedPages ? r.pages : `${r.pages} (expected ${r.expectedPages})`, f3(r.f1), f3(r.precision), f3(r.recall), r.chunks, r.tableChunks, r.jsonTables ?? '', r.formFields ?? 'not exposed', r.kvBlocks ?? '']),
  ]),
);
const scored = rows.filter((r) => r.truth);
if (scored.length) console.log(`\nmean word F1 over ${scored.length} files with a markdown ground truth: ${(scored.reduce((s, r) => s + r.f1!, 0) / scored.length).toFixed(3)}`);
const tableFiles = rows.filter((r) => /table/i.test(r.category));
if (tableFiles.length) console.log(`table files (category names a table): ${tableFiles.map((r) => `${r.id} ${r.tableChunks}`).join(', ')}; without a table chunk: ${tableFiles.filter((r) => !r.tableChunks).map((r) => r.id).join(', ') || 'none'}`);
if (args.json) fs.writeFileSync(args.json, JSON.stringify({ root, git, corpus, rows }, null, 2));
