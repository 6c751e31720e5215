/**
 * Split boundary accuracy through the API: corpus PDFs joined in seeded random combinations of 3-4 documents
 * (pdf-lib), uploaded, and analysed with method ai (POST /api/split/analyze, the detector that
 * POST /api/split/run uses); a boundary is the first page of every joined document but the first. Prints
 * boundary precision, recall and the share of files split exactly, for:
 *   - combinations of the corpus PDFs with a text layer (default 50),
 *   - combinations of every corpus PDF, scans included (OCR; --scans N, default 0),
 *   - scanned receipts of the corpus, several to a PDF, one receipt a page (--receipts N sets of 4, default 10).
 *
 *   node --conditions=quire-source --import tsx bench/split.ts [--combos 50] [--scans 20] [--receipts 10] [--seed 2026] [--list] [--json out.json]
 *
 * `--list` prints every file with its expected and found boundaries and the signals at each. Not part of the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { notATitle } from '@quire/core';
import { corpusRoot, referenceTitle } from '../test/helpers/corpus.js';
import { wordF1 } from '../test/helpers/f1.js';
import { boundaryCounts, drawCombos, joinPdfs, receiptFiles, receiptsPdf, seeded, splitPool } from '../test/helpers/split-combos.js';
import { startService } from './service.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const COMBOS = Number(arg('combos', '50'));
const SCANS = Number(arg('scans', '0'));
const RECEIPTS = Number(arg('receipts', '10'));
const SEED = Number(arg('seed', '2026'));
const LIST = process.argv.includes('--list');
const JSON_OUT = arg('json', '');

const root = corpusRoot();
if (!root) {
  console.error('bench/split: the corpus is not there (QUIRE_CORPUS or ../shared/corpus)');
  process.exit(1);
}

interface Case {
  set: string;
  label: string;
  bytes: Uint8Array;
  starts: number[];
  /** the reference title of each joined document (the first heading of its docling markdown), when known */
  titles: (string | null)[];
}

/**
 * How a section name is judged: `fallback` when it is the type and the page range ("Invoice (pages 2-3)");
 * `bad` when it reads as no title (notATitle: a table row with pipes, an address, phone or postcode line, a
 * date, an amount, a page number, a Label: value pair, OCR noise), as a sentence (ends with . ; or , after 6
 * words or more, starts in lower case, or runs over 20 words), or carries an address (a five-digit postcode,
 * a comma followed by a house or lot number); `right` otherwise. `ref` tells whether it
 * matches the reference title (word F1 >= 0.8) of a document that has one.
 */
export function judgeName(name: string): 'right' | 'fallback' | 'bad' {
  const t = name.replace(/\.\.\.$/, '').trim();
  if (/\((?:page|pages) \d+(?:-\d+)?\)$/.test(t)) return 'fallback';
  const words = t.split(/\s+/).filter(Boolean);
  if (notATitle(t) || /^\p{Ll}/u.test(t) || words.length > 20 || (words.length >= 6 && /[.;,]$/.test(t))) return 'bad';
  // an address inside the name: a five-digit postcode, or a comma followed by a house or lot number
  if (/\b\d{5}\b/.test(t) || /,\s*(?:no\.?\s*|lot\s*)?\d/i.test(t)) return 'bad';
  return 'right';
}
const DOC_TYPES = ['invoice', 'receipt', 'form', 'letter', 'report', 'statement', 'contract', 'article', 'other'];

const cases: Case[] = [];
for (const combo of drawCombos(splitPool(root), COMBOS, SEED)) {
  const j = await joinPdfs(root, combo);
  cases.push({ set: 'text-layer PDFs', label: combo.map((e) => e.id).join(' + '), bytes: j.bytes, starts: j.starts, titles: combo.map((e) => referenceTitle(root!, e)) });
}
for (const combo of drawCombos(splitPool(root, { scans: true }), SCANS, SEED + 1)) {
  const j = await joinPdfs(root, combo);
  cases.push({ set: 'all PDFs (scans OCRed)', label: combo.map((e) => e.id).join(' + '), bytes: j.bytes, starts: j.starts, titles: combo.map((e) => referenceTitle(root!, e)) });
}
const receipts = receiptFiles(root);
const next = seeded(SEED + 2);
for (let i = 0; i < RECEIPTS && receipts.length >= 4; i++) {
  const pick: string[] = [];
  while (pick.length < 4) {
    const f = receipts[Math.floor(next() * receipts.length)]!;
    if (!pick.includes(f)) pick.push(f);
  }
  cases.push({ set: 'scanned receipts (4 a PDF)', label: pick.map((f) => path.basename(f)).join(' + '), bytes: await receiptsPdf(pick), starts: [1, 2, 3, 4], titles: [null, null, null, null] });
}

const KEY = 'svc_5b170000000000000000000000000000000000';
const svc = await startService(KEY, { prefix: 'quire-bench-split-' });
const call = async (p: string, init: RequestInit = {}) => {
  const r = await fetch(`${svc.base}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, ...(init.body && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...(init.headers ?? {}) } });
  return { status: r.status, body: (await r.json()) as any };
};

const started = Date.now();
interface Named {
  name: string;
  verdict: 'right' | 'fallback' | 'bad';
  ref: boolean | null;
  type: string | null;
  typeConfidence: number | null;
}
const results: { set: string; label: string; want: number[]; got: number[]; tp: number; fp: number; fn: number; exact: boolean; reasons: string[]; names: Named[] }[] = [];
try {
  // two at a time: uploads are processed in the background meanwhile
  let at = 0;
  const worker = async () => {
    while (at < cases.length) {
      const c = cases[at++]!;
      const form = new FormData();
      form.append('file', new Blob([Buffer.from(c.bytes)], { type: 'application/pdf' }), 'combined.pdf');
      const up = await call('/v1/documents', { method: 'POST', body: form });
      if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
      for (;;) {
        const d = await call(`/v1/documents/${up.body.id}`);
        if (d.body.status === 'completed') break;
        if (d.body.status === 'failed') throw new Error(`processing failed: ${JSON.stringify(d.body)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const a = await call('/api/split/analyze', { method: 'POST', body: JSON.stringify({ document_id: up.body.id, config: { method: 'ai' } }) });
      if (a.status !== 200) throw new Error(`analyze: ${JSON.stringify(a.body)}`);
      const suggested = a.body.suggested_sections as { page_start: number; name: string; reason: string; document_type?: string | null; document_type_confidence?: number | null }[];
      const got = suggested.map((x) => x.page_start);
      const k = boundaryCounts(c.starts, got);
      // names and types of the sections that start where a joined document starts
      const names: Named[] = [];
      for (const x of suggested) {
        const at = c.starts.indexOf(x.page_start);
        if (at < 0) continue;
        const ref = c.titles[at];
        names.push({ name: x.name, verdict: judgeName(x.name), ref: ref ? wordF1(x.name, ref).f1 >= 0.8 : null, type: x.document_type ?? null, typeConfidence: x.document_type_confidence ?? null });
      }
      results.push({ set: c.set, label: c.label, want: c.starts.slice(1), got: got.slice(1), ...k, reasons: suggested.slice(1).map((x) => `${x.page_start}: ${x.reason}`), names });
    }
  };
  await Promise.all([worker(), worker()]);
} finally {
  await svc.stop();
}

const rows = [...new Set(results.map((r) => r.set))].map((set) => {
  const rs = results.filter((r) => r.set === set);
  const tp = rs.reduce((s, r) => s + r.tp, 0);
  const fp = rs.reduce((s, r) => s + r.fp, 0);
  const fn = rs.reduce((s, r) => s + r.fn, 0);
  const p = tp + fp ? tp / (tp + fp) : 1;
  const rec = tp + fn ? tp / (tp + fn) : 1;
  return { set, files: rs.length, boundaries: tp + fn, precision: p, recall: rec, f1: p + rec ? (2 * p * rec) / (p + rec) : 0, exact: rs.filter((r) => r.exact).length };
});

if (LIST) {
  for (const r of results) console.log(`${r.exact ? 'ok ' : 'XX '} [${r.set}] ${r.label}\n    want ${JSON.stringify(r.want)} got ${JSON.stringify(r.got)}${r.reasons.length ? `\n    ${r.reasons.join('\n    ')}` : ''}`);
  console.log();
}
const head = ['set', 'files', 'boundaries', 'precision', 'recall', 'F1', 'split exactly'];
const table = rows.map((r) => [r.set, String(r.files), String(r.boundaries), r.precision.toFixed(3), r.recall.toFixed(3), r.f1.toFixed(3), `${r.exact}/${r.files}`]);
const w = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
console.log(`split boundaries, method ai (offline), seed ${SEED}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(head.map((h, i) => h.padEnd(w[i]!)).join('  '));
for (const t of table) console.log(t.map((c, i) => (i ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  '));
// section names and types (the sections that start where a joined document starts)
console.log('\nsection names and types (rule: see judgeName)');
const nhead = ['set', 'sections', 'right', 'fallback', 'bad', 'match ref', 'typed', 'with confidence', 'type (top 3)'];
const ntable = [...new Set(results.map((r) => r.set))].map((set) => {
  const ns = results.filter((r) => r.set === set).flatMap((r) => r.names);
  const withRef = ns.filter((x) => x.ref !== null);
  const types = new Map<string, number>();
  for (const x of ns) types.set(x.type ?? 'none', (types.get(x.type ?? 'none') ?? 0) + 1);
  const top = [...types].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([t, n]) => `${t} ${n}`).join(', ');
  const typed = ns.filter((x) => x.type).length;
  const confident = ns.filter((x) => x.type && DOC_TYPES.includes(x.type) && x.typeConfidence !== null).length;
  return [set, String(ns.length), String(ns.filter((x) => x.verdict === 'right').length), String(ns.filter((x) => x.verdict === 'fallback').length), String(ns.filter((x) => x.verdict === 'bad').length), `${withRef.filter((x) => x.ref).length}/${withRef.length}`, `${typed}/${ns.length}`, `${confident}/${ns.length}`, top];
});
const nw = nhead.map((h, i) => Math.max(h.length, ...ntable.map((t) => t[i]!.length)));
console.log(nhead.map((h, i) => h.padEnd(nw[i]!)).join('  '));
for (const t of ntable) console.log(t.map((c, i) => (i ? c.padStart(nw[i]!) : c.padEnd(nw[i]!))).join('  '));
if (LIST) for (const r of results) for (const x of r.names) if (x.verdict === 'bad') console.log(`bad name [${r.set}] ${r.label}: ${JSON.stringify(x.name)}`);
if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ seed: SEED, rows, results }, null, 2));
