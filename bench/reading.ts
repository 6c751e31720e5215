/**
 * Reading order and tables on whole sets, through the API (issue 28). A service is started here (built dist when
 * present, else the TypeScript sources) on a throw-away data directory; every file goes through HTTP.
 *
 * - corpus: every corpus PDF is uploaded to /v1/documents, and once `completed` its text and its chunks (in
 *   order) are read back (GET /v1/documents/:id/content?response=full) and scored by word-BIGRAM F1 (order-aware)
 *   against docling's markdown where the corpus has it (markdown stripped), else against `pdftotext` (plain mode)
 *   of the same file; beside it pdftotext's own bigram F1 against docling and the word (unigram bag) F1. Per file
 *   also the table chunks, the tables of /api/pdf-to-json and the reference's tables (docling JSON), and the
 *   bigram F1 of the body: the blocks of /api/pdf-to-json in reading order less header, footer and figure blocks
 *   (page furniture and the text inside pictures, which the document's text keeps and chunks, chat and
 *   generation leave out). The body is what the service gives its readers, and what docling's Markdown holds
 *   (no furniture; a picture is an image placeholder): the targets of issue 28 are read on it; `text` (the
 *   document's whole text) is printed beside it.
 * - multi: the same for the multi-column prose files only: category says "column", or docling's reference has
 *   paragraphs side by side on a page. Table chunks on these files are flagged.
 * - tables: the ICDAR 2013 PDFs of <corpus>/tables through /api/pdf-to-json: detection recall and precision by
 *   area against the `-reg.xml` regions, and the ICDAR cell adjacency-relation F1 against `-str.xml` (plus a
 *   cell-text multiset F1).
 *
 *   node --conditions=quire-source --import tsx bench/reading.ts [--set multi|corpus|tables|all] [--json out.json] [--only name,name] [--diff name]
 *
 * `--diff name`: for that file (read in the multi or corpus set), the places where its text's order departs
 * from the reference: runs of words whose bigrams the reference lacks, with the words around them.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { startService } from './service.js';
import { stripMarkdown } from '../plugins/reader-pdf/test/f1.js';
import { words, wordF1 } from '../test/helpers/f1.js';

const { values: args } = parseArgs({ options: { set: { type: 'string', default: 'all' }, json: { type: 'string' }, only: { type: 'string' }, diff: { type: 'string' } } });
const sets = args.set === 'all' ? ['multi', 'corpus', 'tables'] : [args.set!];
if (!sets.every((s) => ['multi', 'corpus', 'tables'].includes(s))) {
  console.error('--set multi|corpus|tables|all');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
if (!fs.existsSync(path.join(corpus, 'manifest.json'))) {
  console.error(`no corpus at ${corpus} (QUIRE_CORPUS)`);
  process.exit(2);
}
const only = args.only ? new Set(args.only.split(',')) : null;
const key = `svc_${randomBytes(20).toString('hex')}`;
const auth = { authorization: `Bearer ${key}` };

// ---------- scores ----------

const f1Of = (common: number, a: number, b: number) => ({ f1: a + b ? (2 * common) / (a + b) : 0, precision: a ? common / a : 0, recall: b ? common / b : 0 });

/** F1 of two multisets of strings. */
function multisetF1(candidate: string[], reference: string[]) {
  const left = new Map<string, number>();
  for (const x of reference) left.set(x, (left.get(x) ?? 0) + 1);
  let common = 0;
  for (const x of candidate) {
    const n = left.get(x) ?? 0;
    if (n > 0) {
      common++;
      left.set(x, n - 1);
    }
  }
  return f1Of(common, candidate.length, reference.length);
}

/** Word-bigram F1: the multisets of consecutive word pairs (lowercase letter/digit runs), so order counts. */
function bigramF1(candidate: string, reference: string) {
  const pairs = (t: string) => {
    const w = words(t);
    return w.slice(1).map((x, i) => `${w[i]} ${x}`);
  };
  return multisetF1(pairs(candidate), pairs(reference));
}

/**
 * Where the candidate's order departs from the reference: the candidate's words whose bigram (with the word
 * before) the reference lacks, in runs, each shown with a few words around it and the reference's words
 * around the same first word.
 */
function printDiff(name: string, candidate: string, reference: string) {
  const cw = words(candidate);
  const rw = words(reference);
  const left = new Map<string, number>();
  for (let i = 1; i < rw.length; i++) left.set(`${rw[i - 1]} ${rw[i]}`, (left.get(`${rw[i - 1]} ${rw[i]}`) ?? 0) + 1);
  const bad: number[] = [];
  for (let i = 1; i < cw.length; i++) {
    const k = `${cw[i - 1]} ${cw[i]}`;
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else bad.push(i);
  }
  console.log(`\n### ${name}: ${bad.length} of ${Math.max(0, cw.length - 1)} bigrams not in the reference\n`);
  const runs: [number, number][] = [];
  for (const i of bad) {
    const last = runs[runs.length - 1];
    if (last && i - last[1] <= 3) last[1] = i;
    else runs.push([i, i]);
  }
  const where = (w: string[], i: number) => w.slice(Math.max(0, i - 6), i + 6).join(' ');
  for (const [a, b] of runs) {
    const ref = rw.findIndex((w, j) => j > 0 && rw[j - 1] === cw[a - 1] && w !== cw[a]);
    console.log(`- ${cw.slice(Math.max(0, a - 5), a).join(' ')} ⟦${cw.slice(a, b + 1).join(' ')}⟧ ${cw.slice(b + 1, b + 6).join(' ')}`);
    if (ref >= 0) console.log(`    reference: ${where(rw, ref)}`);
  }
}

// ---------- helpers ----------

const upload = (base: string, url: string, name: string, bytes: Buffer) => {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  return fetch(`${base}${url}`, { method: 'POST', headers: auth, body: form });
};

const pdftotext = (file: string) => {
  try {
    return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
};

/** Page heights in points (pdfinfo), to turn the API's top-left boxes into the ICDAR bottom-left ones. */
function pageHeights(file: string): Map<number, number> {
  const out = new Map<number, number>();
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', '9999', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  for (const m of info.matchAll(/^Page\s+(\d+) size:\s+[\d.]+ x ([\d.]+)/gm)) out.set(Number(m[1]), Number(m[2]));
  return out;
}

interface Stats { mean: number; min: number; sd: number; n: number }
function stats(xs: number[]): Stats | null {
  if (!xs.length) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, min: Math.min(...xs), sd: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length), n: xs.length };
}

const f3 = (x: number | undefined | null) => (x === undefined || x === null ? '' : x.toFixed(3));
function printTable(t: (string | number)[][]) {
  const widths = t[0]!.map((_, i) => Math.max(...t.map((r) => String(r[i] ?? '').length)));
  console.log(t.map((r, j) => r.map((c, i) => String(c ?? '').padEnd(widths[i]!)).join(' | ') + (j === 0 ? '\n' + widths.map((w) => '-'.repeat(w)).join('-|-') : '')).join('\n'));
}
/** The total row under a table: per numeric column the mean, the minimum and the spread (standard deviation). */
function totalRow(columns: (number | undefined | null)[][], lead: number): (string | number)[] {
  const all = columns.map((c) => stats(c.filter((x): x is number => typeof x === 'number')));
  return [`TOTAL (${Math.max(...all.map((s) => s?.n ?? 0))} files): mean (min, sd)`, ...Array(lead - 1).fill(''), ...all.map((s) => (s ? `${f3(s.mean)} (${f3(s.min)}, ${f3(s.sd)})` : ''))];
}

// ---------- the corpus PDFs: reading order, table chunks ----------

interface Entry { id: string; path: string; format: string; category: string; pages: number; ground_truth?: { path: string | null; kind: string }[] }
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')).files as Entry[];
const pdfs = manifest.filter((f) => f.format === 'pdf' && (!only || only.has(f.id)));

interface DoclingJson { texts: { label: string; text: string; prov: { page_no: number; bbox: { l: number; r: number; t: number; b: number } }[] }[]; tables?: unknown[]; pages: Record<string, { size: { width: number } }> }
const docling = (f: Entry): DoclingJson | null => {
  const g = f.ground_truth?.find((x) => x.kind === 'docling_json' && x.path);
  return g ? (JSON.parse(fs.readFileSync(path.join(corpus, g.path!), 'utf8')) as DoclingJson) : null;
};

/** Pairs of paragraphs (60+ characters) of docling's reference that stand side by side on a page, each narrower than 60 % of it. */
function sideBySide(d: DoclingJson | null): number {
  if (!d) return 0;
  const items = d.texts
    .filter((t) => (t.label === 'text' || t.label === 'list_item') && t.text.length >= 60)
    .flatMap((t) => t.prov.map((p) => ({ page: p.page_no, ...p.bbox, width: d.pages[String(p.page_no)]?.size.width ?? 612 })));
  let n = 0;
  for (const [i, a] of items.entries())
    for (const b of items.slice(i + 1)) {
      if (a.page !== b.page) continue;
      const overlap = Math.min(a.t, b.t) - Math.max(a.b, b.b);
      if (overlap <= 0.5 * Math.min(a.t - a.b, b.t - b.b)) continue;
      if ((a.r < b.l || b.r < a.l) && Math.max(a.r - a.l, b.r - b.l) < 0.6 * a.width) n++;
    }
  return n;
}
const isMultiColumn = (f: Entry) => /column/i.test(f.category) || sideBySide(docling(f)) > 0;

interface ReadRow {
  id: string;
  category: string;
  multiColumn: boolean;
  status: string;
  seconds: number;
  pages: number;
  reference: 'docling' | 'pdftotext' | 'none';
  textBigram?: number;
  bodyBigram?: number;
  chunkBigram?: number;
  pdftotextBigram?: number;
  textWord?: number;
  pdftotextWord?: number;
  chunks: number;
  tableChunks: number;
  jsonTables: number | null;
  referenceTables: number | null;
}

async function readFile(base: string, f: Entry): Promise<ReadRow> {
  const file = path.join(corpus, f.path);
  const bytes = fs.readFileSync(file);
  const t0 = performance.now();
  const up = (await (await upload(base, '/v1/documents', f.id, bytes)).json()) as { id: string };
  let d: { status: string; pages?: number };
  for (;;) {
    d = (await (await fetch(`${base}/v1/documents/${up.id}`, { headers: auth })).json()) as { status: string; pages?: number };
    if (d.status === 'completed' || d.status === 'failed') break;
    if (performance.now() - t0 > 600_000) throw new Error(`${f.id}: still ${d.status} after 10 minutes`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ref = docling(f);
  const row: ReadRow = { id: f.id, category: f.category, multiColumn: isMultiColumn(f), status: d.status, seconds: (performance.now() - t0) / 1000, pages: d.pages ?? 0, reference: 'none', chunks: 0, tableChunks: 0, jsonTables: null, referenceTables: ref ? (ref.tables?.length ?? 0) : null };
  if (d.status !== 'completed') return row;
  const c = (await (await fetch(`${base}/v1/documents/${up.id}/content?response=full`, { headers: auth })).json()) as { text?: string; chunks?: { index: number; content: string; type?: string }[] };
  const chunks = [...(c.chunks ?? [])].sort((a, b) => a.index - b.index);
  row.chunks = chunks.length;
  row.tableChunks = chunks.filter((ch) => ch.type === 'table').length;
  const text = c.text ?? '';
  const chunkText = chunks.map((ch) => ch.content).join('\n');
  const md = f.ground_truth?.find((g) => g.kind === 'markdown' && g.path);
  const plain = pdftotext(file);
  let reference = '';
  if (md) {
    reference = stripMarkdown(fs.readFileSync(path.join(corpus, md.path!), 'utf8'));
    row.reference = 'docling';
    // a page without a text layer gives pdftotext nothing to read: no figure rather than a zero in the means
    if (words(plain).length > 1) {
      row.pdftotextBigram = bigramF1(plain, reference).f1;
      row.pdftotextWord = wordF1(plain, reference).f1;
    }
  } else if (words(plain).length > 1) {
    reference = plain;
    row.reference = 'pdftotext';
  }
  if (row.reference !== 'none' && args.diff === f.id) printDiff(f.id, text, reference);
  if (row.reference !== 'none') {
    row.textBigram = bigramF1(text, reference).f1;
    row.chunkBigram = bigramF1(chunkText, reference).f1;
    row.textWord = wordF1(text, reference).f1;
  }
  const j = await upload(base, '/api/pdf-to-json', f.id, bytes);
  if (j.ok) {
    const json = (await j.json()) as { tables?: unknown[]; pages?: { blocks?: { type: string; content: string }[] }[] };
    row.jsonTables = json.tables?.length ?? 0;
    // the body: the blocks in reading order less the page furniture (running heads, footers, page numbers),
    // which the document keeps as typed blocks and leaves out of chunks and of what chat and generation read
    // and the text inside figures (labels of a diagram, names over a cover picture), which docling's reading
    // leaves out too (an image placeholder)
    const body = (json.pages ?? []).flatMap((p) => p.blocks ?? []).filter((b) => b.type !== 'header' && b.type !== 'footer' && b.type !== 'figure').map((b) => b.content).join('\n');
    if (row.reference !== 'none' && body.trim()) row.bodyBigram = bigramF1(body, reference).f1;
  }
  return row;
}

function printReading(name: string, rows: ReadRow[]) {
  console.log(`\n## ${name}: reading order (word-bigram F1) and table chunks, ${rows.length} PDFs\n`);
  const sorted = [...rows].sort((a, b) => (a.bodyBigram ?? a.textBigram ?? 2) - (b.bodyBigram ?? b.textBigram ?? 2));
  printTable([
    ['file', 'multi-col', 'status', 's', 'pages', 'reference', 'bigram F1 text', 'bigram F1 body', 'bigram F1 chunks', 'pdftotext bigram F1', 'word F1 text', 'pdftotext word F1', 'table chunks', 'tables (json)', 'tables (docling)', 'flag'],
    ...sorted.map((r) => [r.id, r.multiColumn ? 'yes' : '', r.status, r.seconds.toFixed(1), r.pages, r.reference, f3(r.textBigram), f3(r.bodyBigram), f3(r.chunkBigram), f3(r.pdftotextBigram), f3(r.textWord), f3(r.pdftotextWord), r.tableChunks, r.jsonTables ?? '', r.referenceTables ?? '', flag(r)]),
    totalRow([rows.map((r) => r.textBigram), rows.map((r) => r.bodyBigram), rows.map((r) => r.chunkBigram), rows.map((r) => r.pdftotextBigram), rows.map((r) => r.textWord), rows.map((r) => r.pdftotextWord)], 6),
  ]);
  const scored = rows.filter((r) => r.textBigram !== undefined);
  const vsDocling = rows.filter((r) => r.pdftotextBigram !== undefined);
  const below = vsDocling.filter((r) => r.textBigram! < r.pdftotextBigram!);
  const bodyBelow = vsDocling.filter((r) => r.bodyBigram !== undefined && r.bodyBigram < r.pdftotextBigram!);
  const under95 = (k: 'textBigram' | 'bodyBigram') => scored.filter((r) => r[k] !== undefined && r[k]! < 0.95).map((r) => r.id);
  const flagged = rows.filter((r) => flag(r));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  console.log(
    `\n${name}: mean bigram F1 ${f3(mean(scored.map((r) => r.textBigram!)))} (text), ${f3(mean(scored.filter((r) => r.bodyBigram !== undefined).map((r) => r.bodyBigram!)))} (body: text less furniture and figure text, min ${f3(Math.min(...scored.filter((r) => r.bodyBigram !== undefined).map((r) => r.bodyBigram!)))}), ${f3(mean(scored.map((r) => r.chunkBigram!)))} (chunks) over ${scored.length} files; ` +
      `against docling (${vsDocling.length} files) ${f3(mean(vsDocling.map((r) => r.textBigram!)))} (body ${f3(mean(vsDocling.filter((r) => r.bodyBigram !== undefined).map((r) => r.bodyBigram!)))}) vs pdftotext ${f3(mean(vsDocling.map((r) => r.pdftotextBigram!)))}, below pdftotext on ${below.length} (${below.map((r) => r.id).join(', ') || 'none'}; body ${bodyBelow.length}: ${bodyBelow.map((r) => r.id).join(', ') || 'none'}); ` +
      `under 0.95: text ${under95('textBigram').length}, body ${under95('bodyBigram').length}; ` +
      `word F1 ${f3(mean(scored.map((r) => r.textWord!)))}; table chunks ${rows.reduce((s, r) => s + r.tableChunks, 0)}, multi-column prose files with table chunks: ${flagged.map((r) => `${r.id} (${r.tableChunks})`).join(', ') || 'none'}`,
  );
}
const flag = (r: ReadRow) => (r.multiColumn && r.tableChunks > 0 ? 'table chunks on multi-column prose' : '');

// ---------- ICDAR 2013 tables ----------

interface Box { page: number; x1: number; y1: number; x2: number; y2: number }
interface Cell { row: number; col: number; endRow: number; endCol: number; text: string }
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, isArray: (n) => ['table', 'region', 'cell', 'instruction'].includes(n) });
type XmlRegion = { page: string; 'bounding-box'?: { x1: string; y1: string; x2: string; y2: string }; cell?: { 'start-row': string; 'end-row'?: string; 'start-col': string; 'end-col'?: string; content?: string }[] };
const regionsOf = (file: string) => ((xml.parse(fs.readFileSync(file, 'utf8')) as { document: { table?: { region: XmlRegion[] }[] } }).document.table ?? []);

/** Area of the union of rectangles (coordinate compression: the sets are small). */
function unionArea(rects: Box[]): number {
  const xs = [...new Set(rects.flatMap((r) => [r.x1, r.x2]))].sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    const [a, b] = [xs[i]!, xs[i + 1]!];
    const spans = rects.filter((r) => r.x1 <= a && r.x2 >= b).map((r) => [r.y1, r.y2] as const).sort((p, q) => p[0] - q[0]);
    let covered = 0;
    let end = -Infinity;
    for (const [y1, y2] of spans) {
      if (y2 <= end) continue;
      covered += y2 - Math.max(y1, end);
      end = y2;
    }
    area += covered * (b - a);
  }
  return area;
}
const clip = (r: Box, c: Box): Box | null => {
  const b = { page: r.page, x1: Math.max(r.x1, c.x1), y1: Math.max(r.y1, c.y1), x2: Math.min(r.x2, c.x2), y2: Math.min(r.y2, c.y2) };
  return b.x1 < b.x2 && b.y1 < b.y2 ? b : null;
};
/** Σ over `boxes` of the area covered by `by` (same page), and Σ of their areas. */
function covered(boxes: Box[], by: Box[]): { covered: number; total: number } {
  let cov = 0;
  let total = 0;
  for (const r of boxes) {
    total += (r.x2 - r.x1) * (r.y2 - r.y1);
    cov += unionArea(by.filter((o) => o.page === r.page).map((o) => clip(o, r)).filter((x): x is Box => !!x));
  }
  return { covered: cov, total };
}

const norm = (s: string) => words(s).join('');
/**
 * ICDAR 2013 adjacency relations of a table: each non-empty cell with its nearest non-empty neighbour to the
 * right and below (across empty cells), as "text → text (direction)" strings of normalised text.
 */
function adjacency(cells: Cell[]): string[] {
  const at = new Map<string, number>();
  cells.forEach((c, i) => {
    for (let r = c.row; r <= c.endRow; r++) for (let k = c.col; k <= c.endCol; k++) at.set(`${r},${k}`, i);
  });
  const maxCol = Math.max(...cells.map((c) => c.endCol));
  const maxRow = Math.max(...cells.map((c) => c.endRow));
  const out = new Set<string>();
  // from cell i along its rows (→) or its columns (↓): the first other non-empty cell
  const scan = (i: number, dir: '→' | '↓', lanes: [number, number], from: number, to: number, pos: (lane: number, step: number) => string) => {
    for (let lane = lanes[0]; lane <= lanes[1]; lane++)
      for (let step = from; step <= to; step++) {
        const j = at.get(pos(lane, step));
        if (j !== undefined && j !== i && norm(cells[j]!.text)) {
          out.add(`${i}\u0000${j}\u0000${dir}`);
          break;
        }
      }
  };
  cells.forEach((c, i) => {
    if (!norm(c.text)) return;
    scan(i, '→', [c.row, c.endRow], c.endCol + 1, maxCol, (r, k) => `${r},${k}`);
    scan(i, '↓', [c.col, c.endCol], c.endRow + 1, maxRow, (k, r) => `${r},${k}`);
  });
  return [...out].map((s) => {
    const [a, b, d] = s.split('\u0000');
    return `${norm(cells[Number(a)]!.text)} ${d} ${norm(cells[Number(b)]!.text)}`;
  });
}

interface TableRow { id: string; pages: number; gtTables: number; detected: number; recall: number | null; precision: number | null; gtArea: number; gtCovered: number; detArea: number; detCovered: number; adjacencyF1: number; cellTextF1: number; seconds: number; boxes: { gt: Box[]; detected: Box[] } }

interface ApiTable { bbox: { page: number; left: number; top: number; width: number; height: number }; metadata: { page?: number; formats?: { json?: { cells?: { row: number; col: number; rowSpan?: number; colSpan?: number; text: string }[] } } } }

async function readTableFile(base: string, name: string): Promise<TableRow> {
  const dir = path.join(corpus, 'tables');
  const file = path.join(dir, `${name}.pdf`);
  const heights = pageHeights(file);
  const t0 = performance.now();
  const res = await upload(base, '/api/pdf-to-json', `${name}.pdf`, fs.readFileSync(file));
  if (!res.ok) throw new Error(`${name}: /api/pdf-to-json answered ${res.status}`);
  const body = (await res.json()) as { tables?: ApiTable[] };
  const seconds = (performance.now() - t0) / 1000;
  const tables = body.tables ?? [];
  const detected: Box[] = tables.map((t) => {
    const h = heights.get(t.bbox.page) ?? 792;
    return { page: t.bbox.page, x1: t.bbox.left, x2: t.bbox.left + t.bbox.width, y1: h - (t.bbox.top + t.bbox.height), y2: h - t.bbox.top };
  });
  const gt: Box[] = regionsOf(path.join(dir, `${name}-reg.xml`)).flatMap((t) =>
    t.region.map((r) => {
      const b = r['bounding-box']!;
      return { page: Number(r.page), x1: Number(b.x1), y1: Number(b.y1), x2: Number(b.x2), y2: Number(b.y2) };
    }),
  );
  const rec = covered(gt, detected);
  const prec = covered(detected, gt);
  // structure: one cell list per region of the ground truth, one per detected table
  const gtCells: Cell[][] = regionsOf(path.join(dir, `${name}-str.xml`)).flatMap((t) =>
    t.region.map((r) =>
      (r.cell ?? []).map((c) => ({ row: Number(c['start-row']), col: Number(c['start-col']), endRow: Number(c['end-row'] ?? c['start-row']), endCol: Number(c['end-col'] ?? c['start-col']), text: String(c.content ?? '') })),
    ),
  );
  const detCells: Cell[][] = tables.map((t) => (t.metadata.formats?.json?.cells ?? []).map((c) => ({ row: c.row, col: c.col, endRow: c.row + (c.rowSpan ?? 1) - 1, endCol: c.col + (c.colSpan ?? 1) - 1, text: c.text })));
  const adj = multisetF1(detCells.flatMap((c) => (c.length ? adjacency(c) : [])), gtCells.flatMap((c) => (c.length ? adjacency(c) : [])));
  const cellTexts = (cs: Cell[][]) => cs.flat().map((c) => norm(c.text)).filter(Boolean);
  return {
    id: name,
    pages: heights.size,
    gtTables: gt.length,
    detected: detected.length,
    recall: rec.total ? rec.covered / rec.total : null,
    precision: prec.total ? prec.covered / prec.total : null,
    gtArea: rec.total,
    gtCovered: rec.covered,
    detArea: prec.total,
    detCovered: prec.covered,
    adjacencyF1: adj.f1,
    cellTextF1: multisetF1(cellTexts(detCells), cellTexts(gtCells)).f1,
    seconds,
    boxes: { gt, detected },
  };
}

function printTables(rows: TableRow[]) {
  console.log(`\n## tables: ICDAR 2013 (${rows.length} PDFs) through /api/pdf-to-json\n`);
  const sorted = [...rows].sort((a, b) => (a.recall ?? 0) + a.adjacencyF1 - ((b.recall ?? 0) + b.adjacencyF1));
  printTable([
    ['file', 'pages', 's', 'GT regions', 'detected', 'recall (area)', 'precision (area)', 'adjacency F1', 'cell-text F1'],
    ...sorted.map((r) => [r.id, r.pages, r.seconds.toFixed(1), r.gtTables, r.detected, f3(r.recall), r.detected ? f3(r.precision) : '-', f3(r.adjacencyF1), f3(r.cellTextF1)]),
    totalRow([rows.map((r) => r.recall), rows.map((r) => r.precision), rows.map((r) => r.adjacencyF1), rows.map((r) => r.cellTextF1)], 5),
  ]);
  const sum = (f: (r: TableRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const missed = rows.filter((r) => !r.detected).length;
  console.log(
    `\ntables: area recall ${f3(sum((r) => r.gtCovered) / sum((r) => r.gtArea))}, area precision ${f3(sum((r) => r.detCovered) / sum((r) => r.detArea) || 0)} (summed over all regions); ` +
      `per-file mean adjacency F1 ${f3(sum((r) => r.adjacencyF1) / rows.length)}, cell-text F1 ${f3(sum((r) => r.cellTextF1) / rows.length)}; ` +
      `${sum((r) => r.detected)} tables detected for ${sum((r) => r.gtTables)} GT regions, ${missed} files with none detected`,
  );
}

// ---------- run ----------

const git = (() => {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 100);
  } catch {
    return '';
  }
})();
const tableNames = fs
  .readdirSync(path.join(corpus, 'tables'))
  .filter((f) => f.endsWith('.pdf') && (!only || only.has(f.replace(/\.pdf$/, '')) || only.has(f)))
  .map((f) => f.replace(/\.pdf$/, ''))
  .sort();
const svc = await startService(key, { prefix: 'quire-reading-' });
const loadStart = os.loadavg();
const read = new Map<string, ReadRow>();
const tableRows: TableRow[] = [];
try {
  const wanted = sets.includes('corpus') ? pdfs : sets.includes('multi') ? pdfs.filter(isMultiColumn) : [];
  for (const f of wanted) {
    read.set(f.id, await readFile(svc.base, f));
    process.stderr.write(`${f.id}: ${read.get(f.id)!.status} ${read.get(f.id)!.seconds.toFixed(1)} s\n`);
  }
  if (sets.includes('tables'))
    for (const name of tableNames) {
      tableRows.push(await readTableFile(svc.base, name));
      process.stderr.write(`${name}: ${tableRows.at(-1)!.seconds.toFixed(1)} s\n`);
    }
} finally {
  await svc.stop();
}
console.log(`Reading order and tables through the API: ${root} (${git}); corpus ${corpus}; load ${loadStart.map((x) => x.toFixed(2)).join(' ')} → ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const rows = [...read.values()];
if (sets.includes('multi')) printReading('multi', rows.filter((r) => r.multiColumn));
if (sets.includes('corpus')) printReading('corpus', rows);
if (sets.includes('tables')) printTables(tableRows);
if (args.json) fs.writeFileSync(args.json, JSON.stringify({ root, git, corpus, load: loadStart, reading: rows, tables: tableRows }, null, 2));
