/**
 * Legacy workbooks (xls, qpw) through SheetJS `xlsx` 0.18.5. That version has known advisories (prototype
 * pollution, ReDoS), so it is used for these binary formats only — never OOXML — and it runs in a
 * worker thread of its own: a polluted prototype stays in that worker's realm, a runaway regular expression
 * is ended by terminating the worker (time limit or abort), and only plain cell texts come back.
 * Dense mode, no formulas/HTML/styles, blank rows skipped, and the cell cap applied inside the worker.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { SheetData } from './model.js';
import { errors } from '@quire/core';
import type { CellBudget } from './ooxml.js';
import { cellLimitError } from './ooxml.js';
import { abortReason } from './util.js';

const require = createRequire(import.meta.url);
/** heap of the SheetJS worker */
const MEMORY_MB = 2048;

/** The worker body (plain CommonJS; formatting rules mirror model.ts canonicalNumber / isoFromParts). */
const WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const XLSX = require(workerData.xlsxPath);
const pad = (v, w = 2) => String(v).padStart(w, '0');
const iso = (p) => {
  const date = pad(p.y, 4) + '-' + pad(p.m) + '-' + pad(p.d);
  const S = Math.round(p.S);
  return p.H || p.M || S ? date + 'T' + pad(p.H) + ':' + pad(p.M) + ':' + pad(S) : date;
};
const num = (n) => (!Number.isFinite(n) ? String(n) : Number.isInteger(n) && Math.abs(n) < 1e21 ? String(n) : String(Number(n.toPrecision(15))));
try {
  const wb = XLSX.read(Buffer.from(workerData.bytes), { type: 'buffer', dense: true, cellNF: true, cellDates: false, cellFormula: false, cellHTML: false, cellStyles: false, cellText: false, sheetStubs: false, bookVBA: false });
  const date1904 = !!(wb.Workbook && wb.Workbook.WBProps && wb.Workbook.WBProps.date1904);
  let remaining = workerData.maxCells;
  let truncated = false;
  let count = 0;
  const sheets = [];
  const names = (wb.SheetNames || []).map(String);
  if (names.length > workerData.maxPages) throw Object.assign(new Error('too many sheets'), { over: 'pages', sheets: names.length });
  for (const name of names) {
    if (workerData.maxSheets && sheets.length >= workerData.maxSheets) break;
    const ws = wb.Sheets[name];
    const cells = [];
    if (Array.isArray(ws)) {
      for (let r = 0; r < ws.length && !truncated; r++) {
        const row = ws[r];
        if (!row) continue;
        for (let c = 0; c < row.length; c++) {
          const cell = row[c];
          if (!cell) continue;
          let text = '';
          let kind = 'text';
          if (cell.t === 'n') {
            const n = Number(cell.v);
            const fmt = typeof cell.z === 'string' ? cell.z : typeof cell.z === 'number' ? XLSX.SSF.get_table()[cell.z] : undefined;
            const p = fmt && XLSX.SSF.is_date(fmt) ? XLSX.SSF.parse_date_code(n, { date1904 }) : null;
            if (p) { text = iso(p); kind = 'date'; } else { text = num(n); kind = 'number'; }
          } else if (cell.t === 's' || cell.t === 'str') text = String(cell.v == null ? '' : cell.v).trim();
          else if (cell.t === 'b') { text = cell.v ? 'TRUE' : 'FALSE'; kind = 'bool'; }
          else if (cell.t === 'e') { text = String(cell.w == null ? '#ERROR' : cell.w); kind = 'error'; }
          if (!text) continue;
          if (remaining <= 0) { truncated = true; break; }
          if (++count > workerData.cellLimit) throw Object.assign(new Error('too many cells'), { over: 'cells' });
          remaining--;
          cells.push({ r, c, text, kind });
        }
      }
    }
    const merges = (Array.isArray(ws && ws['!merges']) ? ws['!merges'] : []).map((m) => ({ r0: Number(m.s.r), c0: Number(m.s.c), r1: Number(m.e.r), c1: Number(m.e.c) }));
    sheets.push({ name, cells, merges });
    if (truncated) break;
  }
  parentPort.postMessage({ ok: true, sheets, remaining, truncated });
} catch (e) {
  parentPort.postMessage({ ok: false, message: String((e && e.message) || e), over: e && e.over, sheets: e && e.sheets });
}
`;

export interface LegacyOptions {
  signal?: AbortSignal;
  maxSheets?: number;
  timeoutMs: number;
  /** ReadLimits.pages: more sheets fail the read */
  maxPages?: number;
  /** format, for messages */
  label?: string;
}

export function readLegacy(bytes: Uint8Array, budget: CellBudget, o: LegacyOptions): Promise<SheetData[]> {
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(abortReason(o.signal));
    const copy = new Uint8Array(bytes); // transferred to the worker
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { xlsxPath: require.resolve('xlsx'), bytes: copy, maxCells: budget.remaining, maxSheets: o.maxSheets ?? 0, cellLimit: budget.limit ?? Infinity, maxPages: o.maxPages ?? Infinity },
      transferList: [copy.buffer],
      resourceLimits: { maxOldGenerationSizeMb: MEMORY_MB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (err: unknown, sheets?: SheetData[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (err) reject(err);
      else resolve(sheets!);
    };
    const timer = setTimeout(() => finish(new Error(`reading took longer than ${Math.round(o.timeoutMs / 1000)} s`)), o.timeoutMs);
    const onAbort = () => finish(abortReason(o.signal!));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const label = o.label ?? 'the workbook';
    worker.once('message', (m: { ok: boolean; message?: string; sheets?: SheetData[] | number; remaining?: number; truncated?: boolean; over?: 'cells' | 'pages' }) => {
      if (m.over === 'cells') return finish(cellLimitError(budget));
      if (m.over === 'pages') return finish(errors.unprocessable(`${label} exceeds ${(o.maxPages ?? 0).toLocaleString('en')} pages (it has ${Number(m.sheets).toLocaleString('en')} sheets)`, { limit_pages: o.maxPages }));
      if (!m.ok) return finish(new Error(String(m.message ?? 'unknown error')));
      budget.remaining = Number(m.remaining ?? budget.remaining);
      budget.truncated = !!m.truncated;
      finish(null, (m.sheets as SheetData[] | undefined) ?? []);
    });
    worker.once('error', (e) => {
      if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') return finish(errors.unprocessable(`${label} needs more memory than the reader may use (${MEMORY_MB} MB)`));
      finish(new Error(e instanceof Error ? e.message : String(e)));
    });
    worker.once('exit', (code) => finish(new Error(`the reader stopped unexpectedly (exit code ${code})`)));
  });
}
