/**
 * The reader tests' harness (office, sheet, slides readers): zip bombs made of one huge repetitive XML part,
 * entity bombs, minimal OOXML packages, a read in a fresh process, and a temp folder to read files from. Zips
 * are written by ./hostile.ts (node:zlib, much faster than fflate for hundreds of MB); any zip reader reads them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isQuireError } from '@quire/core';
import type { ParsedDocument, ReadOptions, ReaderPlugin } from '@quire/core';
import { builtFile, builtIsCurrent } from './built-check.mjs';
import { storedEntry, zip } from './hostile.js';

export const MB = 1024 * 1024;

/** Whether the tesseract command is installed (OCR tests are skipped without it). */
export const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `head` + `unit` repeated to about `bytes` + `tail`, built by doubling copies (fast even for 200 MB). */
export function repeated(head: string, unit: string, bytes: number, tail: string): Buffer {
  const h = Buffer.from(head);
  const u = Buffer.from(unit);
  const t = Buffer.from(tail);
  const n = Math.max(1, Math.floor((bytes - h.length - t.length) / u.length));
  const out = Buffer.allocUnsafe(h.length + u.length * n + t.length);
  h.copy(out, 0);
  u.copy(out, h.length);
  let filled = u.length;
  const body = u.length * n;
  while (filled < body) {
    const c = Math.min(filled, body - filled);
    out.copy(out, h.length + filled, h.length, h.length + c);
    filled += c;
  }
  t.copy(out, h.length + body);
  return out;
}

/** A zip of the given parts (deflated at level 9, or stored with `store`). */
export function zipParts(parts: Record<string, string | Uint8Array>, store: string[] = []): Buffer {
  return zip(Object.entries(parts).map(([name, content]) => ({ name, content: store.includes(name) ? storedEntry(content) : content })));
}

const CT = (overrides: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`;
const RELS = (rels: [string, string, string][]) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels
    .map(([id, type, target]) => `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`)
    .join('')}</Relationships>`;

export const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
export const DOC_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W_NS}><w:body>`;
export const DOC_TAIL = '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>';
export const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/** A docx around the given word/document.xml (and extra parts). */
export function docx(documentXml: string | Uint8Array, extra: Record<string, string | Uint8Array> = {}): Buffer {
  return zipParts({
    '[Content_Types].xml': CT('<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'),
    '_rels/.rels': RELS([['rId1', 'officeDocument', 'word/document.xml']]),
    'word/document.xml': documentXml,
    ...extra,
  });
}

export const S_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
export const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ${S_NS}><sheetData>`;
export const SHEET_TAIL = '</sheetData></worksheet>';

/** An xlsx with the given worksheets (name → sheet XML) and extra parts (e.g. xl/sharedStrings.xml). */
export function xlsx(sheets: Record<string, string | Uint8Array>, extra: Record<string, string | Uint8Array> = {}): Buffer {
  const names = Object.keys(sheets);
  const parts: Record<string, string | Uint8Array> = {
    '[Content_Types].xml': CT(
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        names.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join(''),
    ),
    '_rels/.rels': RELS([['rId1', 'officeDocument', 'xl/workbook.xml']]),
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook ${S_NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${names
      .map((n, i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': RELS(names.map((_, i) => [`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`])),
  };
  names.forEach((n, i) => (parts[`xl/worksheets/sheet${i + 1}.xml`] = sheets[n]!));
  return zipParts({ ...parts, ...extra });
}

export const P_NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
export const SLIDE_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld ${P_NS}><p:cSld><p:spTree>`;
export const SLIDE_TAIL = '</p:spTree></p:cSld></p:sld>';
export const shape = (text: string) => `<p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;

/** A pptx with the given slides (slide XML each). */
export function pptx(slides: (string | Uint8Array)[], extra: Record<string, string | Uint8Array> = {}): Buffer {
  const parts: Record<string, string | Uint8Array> = {
    '[Content_Types].xml': CT(
      '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>' +
        slides.map((_, i) => `<Override PartName="/ppt/slides/slide${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`).join(''),
    ),
    '_rels/.rels': RELS([['rId1', 'officeDocument', 'ppt/presentation.xml']]),
    'ppt/presentation.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation ${P_NS}><p:sldIdLst>${slides
      .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`)
      .join('')}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': RELS(slides.map((_, i) => [`rId${i + 1}`, 'slide', `slides/slide${i + 1}.xml`])),
  };
  slides.forEach((s, i) => (parts[`ppt/slides/slide${i + 1}.xml`] = s));
  return zipParts({ ...parts, ...extra });
}

/** "Billion laughs": ten levels of entities each ten times the one below (a 3 GB expansion), then `root`. */
export function entityBomb(root: string): string {
  let ents = '<!ENTITY lol0 "lollollollollollollollollollol">';
  for (let i = 1; i < 10; i++) ents += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE lolz [${ents}]>${root}`;
}

/** Runs `fn` and reports its time and how much it raised the process's peak RSS. */
export async function measure<T>(fn: () => Promise<T>): Promise<{ ms: number; peakGrowthMb: number; result?: T; error?: unknown }> {
  const peak0 = process.resourceUsage().maxRSS / 1024;
  const t0 = performance.now();
  let result: T | undefined;
  let error: unknown;
  try {
    result = await fn();
  } catch (e) {
    error = e;
  }
  return { ms: performance.now() - t0, peakGrowthMb: process.resourceUsage().maxRSS / 1024 - peak0, result, error };
}

export const isCode = (code: string, re: RegExp) => (e: unknown) => isQuireError(e) && e.code === code && re.test(e.message);

export interface ChildRead {
  ok: boolean;
  code?: string;
  message?: string;
  pages?: number;
  blocks?: number;
  tables?: number;
  issues?: string[];
  ms: number;
  /** peak RSS of the whole reading process (node, and tsx on the sources: ≈ 100-150 MB of it) */
  maxRssMb: number;
}

/**
 * Reads `file` with a reader made by `factory` (exported by `modulePath`, a package's TypeScript source) in a
 * fresh node process, so its peak memory is the read's own. `heapMb` bounds the child's heap like the host's
 * reader threads do. When the build is current, the child runs the built module (dist/) with plain node, as
 * in production; else the source under tsx.
 */
export async function readInChild(modulePath: string, factory: string, file: string, format: string, options: Record<string, unknown>, heapMb = 2048): Promise<ChildRead> {
  const { execFile } = await import('node:child_process');
  const built = builtIsCurrent() ? builtFile(modulePath) : null;
  const code = `
    const m = await import(${JSON.stringify(new URL(built ?? modulePath, 'file://').href)});
    const reader = m[${JSON.stringify(factory)}]({ options: {}, tryGet: () => undefined });
    const fs = await import('node:fs');
    const t0 = performance.now();
    let out;
    try {
      const doc = await reader.read({ path: ${JSON.stringify(file)}, name: 'hostile.${format}', format: ${JSON.stringify(format)}, size: fs.statSync(${JSON.stringify(file)}).size, documentId: 'd' }, ${JSON.stringify({ ocr: { enabled: false, language: 'eng' }, ...options })});
      out = { ok: true, pages: doc.pages.length, blocks: doc.blocks.length, tables: doc.tables.length, issues: doc.issues.map((i) => i.code) };
    } catch (e) {
      out = { ok: false, code: e?.code, message: e?.message };
    }
    out.ms = Math.round(performance.now() - t0);
    out.maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    console.log(JSON.stringify(out));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [`--max-old-space-size=${heapMb}`, ...(built ? [] : ['--conditions=quire-source', '--import', 'tsx']), '--input-type=module', '-e', code],
      { cwd: new URL('../..', import.meta.url).pathname, maxBuffer: 1024 * 1024, timeout: 240_000, env: { ...process.env, QUIRE_LOG_LEVEL: 'silent' } },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(line) as ChildRead);
        } catch {
          reject(new Error(`the reading process failed (${err?.message ?? 'no output'}): ${stderr.slice(-500)}`));
        }
      },
    );
  });
}

/**
 * A temp folder and a read(name, bytes, options) for a reader under test: the bytes are written to a file
 * and read with OCR off; the format is the file name's extension. The folder is removed at exit.
 */
export function readerHarness(prefix: string, reader: ReaderPlugin) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quire-${prefix}-hostile-`));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const save = (name: string, bytes: Uint8Array | string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, bytes);
    return p;
  };
  const read = (name: string, bytes: Uint8Array | string, options: Partial<ReadOptions> = {}): Promise<ParsedDocument> => {
    const p = save(name, bytes);
    return reader.read({ path: p, name, format: name.split('.').pop()!, size: fs.statSync(p).size, documentId: 'd' }, { ocr: { enabled: false, language: 'eng' }, ...options });
  };
  return { dir, save, read };
}

/** A PNG (72 dpi, 900 × 400) of a ruled 3 × 3 table (Product, Units, Price) with a line of text below it. */
export async function ruledTablePng(): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const c = createCanvas(900, 400);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.strokeStyle = '#000';
  g.lineWidth = 2;
  const xs = [50, 350, 600, 850];
  const ys = [50, 130, 210, 290];
  for (const y of ys) {
    g.beginPath();
    g.moveTo(xs[0]!, y);
    g.lineTo(xs[3]!, y);
    g.stroke();
  }
  for (const x of xs) {
    g.beginPath();
    g.moveTo(x, ys[0]!);
    g.lineTo(x, ys[3]!);
    g.stroke();
  }
  g.fillStyle = '#000';
  g.font = '34px DejaVu Sans';
  const rows = [['Product', 'Units', 'Price'], ['Apples', '120', '3.50'], ['Pears', '75', '4.25']];
  rows.forEach((r, ri) => r.forEach((t, ci) => g.fillText(t, xs[ci]! + 15, ys[ri]! + 55)));
  g.fillText('Notes below the table.', 50, 360);
  return c.toBuffer('image/png');
}
