/**
 * Corpus extraction: the shared corpus's invoices (expected_fields_json) and receipts (key_fields_json)
 * parsed with the PDF / image readers, then extracted offline. Skips when the corpus, the readers or
 * tesseract are absent.
 *
 * Two figures: end-to-end accuracy over every mapped field, and extraction accuracy over the fields whose
 * expected value is printed in the parsed text at all (reading errors such as OCR misspellings, and
 * template artefacts of the reference, cannot be extracted from any reading; they count only in the
 * first figure). Evidence is checked against an independent location of the value: pdftotext word boxes
 * for PDFs, the SROIE line boxes for receipts, the OCR words elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { BBox, FieldResult, ParsedDocument } from '@quire/core';
import { normaliseText, scanTyped, normaliseValue } from '@quire/fields';
import { createExtractor } from '@quire/plugin-extractor-layout';
import { CORPUS, corpusCases, loadReaders, parseCase, matches, LINE_ITEMS, expectedLines, rowsMatched, type CorpusCase } from './corpus-cases.js';

const cases = corpusCases();
const readers = cases.length ? await loadReaders() : null;
const skip = !cases.length ? 'corpus not present' : !readers ? 'reader plugins not present' : false;

interface Located {
  page: number;
  bbox: BBox;
  text: string;
}

/** Word boxes of a text-layer PDF from pdftotext -bbox (points, top-left origin), or null without poppler. */
function pdfWords(file: string): Located[] | null {
  try {
    const xml = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const out: Located[] = [];
    let page = 0;
    for (const m of xml.matchAll(/<page |<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      if (m[0] === '<page ') page++;
      else out.push({ page, bbox: { x: +m[1]!, y: +m[2]!, width: +m[3]! - +m[1]!, height: +m[4]! - +m[2]! }, text: m[5]!.replace(/&amp;/g, '&') });
    }
    return out;
  } catch {
    return null;
  }
}

/** SROIE line boxes (pixels) scaled to the page's points. */
function sroieLines(c: CorpusCase, doc: ParsedDocument): Located[] | null {
  const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
  const entry = manifest.files.find((f: any) => f.id === c.id);
  const csv = entry?.ground_truth?.find((g: any) => g.kind === 'ocr_lines_csv');
  if (!csv || !entry.image_size) return null;
  const k = doc.pages[0]!.width / entry.image_size[0];
  return fs
    .readFileSync(path.join(CORPUS, csv.path), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const p = line.split(',');
      const n = p.slice(0, 8).map(Number);
      const xs = [n[0]!, n[2]!, n[4]!, n[6]!], ys = [n[1]!, n[3]!, n[5]!, n[7]!];
      return { page: 1, bbox: { x: Math.min(...xs) * k, y: Math.min(...ys) * k, width: (Math.max(...xs) - Math.min(...xs)) * k, height: (Math.max(...ys) - Math.min(...ys)) * k }, text: p.slice(8).join(',') };
    });
}

const overlaps = (a: BBox, b: BBox, slack = 2) =>
  a.x < b.x + b.width + slack && b.x < a.x + a.width + slack && a.y < b.y + b.height + slack && b.y < a.y + a.height + slack;

/** Boxes where `printed` appears among located words/lines: consecutive words joined, or a line containing it. */
function whereIs(printed: string, located: Located[]): Located[] {
  const want = normaliseText(printed).replace(/\s/g, '');
  const hits: Located[] = [];
  for (let i = 0; i < located.length; i++) {
    let acc = '';
    for (let j = i; j < Math.min(located.length, i + 12) && located[j]!.page === located[i]!.page; j++) {
      acc += normaliseText(located[j]!.text).replace(/\s/g, '');
      if (acc.includes(want)) {
        const boxes = located.slice(i, j + 1).map((l) => l.bbox);
        const x0 = Math.min(...boxes.map((b) => b.x)), y0 = Math.min(...boxes.map((b) => b.y));
        hits.push({ page: located[i]!.page, bbox: { x: x0, y: y0, width: Math.max(...boxes.map((b) => b.x + b.width)) - x0, height: Math.max(...boxes.map((b) => b.y + b.height)) - y0 }, text: printed });
        break;
      }
      if (!want.startsWith(acc) && !acc.includes(want.slice(0, Math.min(want.length, acc.length)))) break;
    }
  }
  return hits;
}

/** Whether the expected value is printed anywhere in the parsed text (else no extractor can find it). */
function printed(doc: ParsedDocument, c: CorpusCase, field: string): boolean {
  const def = c.fields.find((f) => f.name === field)!;
  const want = c.expected[field];
  if (def.type === 'number' || def.type === 'date') {
    const target = JSON.stringify(normaliseValue(want, def, { dateOrder: 'DMY' }));
    return scanTyped(doc.text, def.type, { dateOrder: 'DMY' }).some((m) => JSON.stringify(normaliseValue(m.value, def, { dateOrder: 'DMY' })) === target);
  }
  return normaliseText(doc.text).replace(/\s/g, '').includes(normaliseText(String(want)).replace(/\s/g, ''));
}

test('corpus: invoice and receipt fields and line items from parsed samples, with evidence where the value is printed', { skip, timeout: 240_000 }, async (t) => {
  const ex = createExtractor({ use: (() => undefined) as any });
  let all = 0, allOk = 0, reach = 0, reachOk = 0, boxesChecked = 0;
  const misses: string[] = [];
  let rowsWant = 0, rowsOk = 0;
  const rowReport: string[] = [];
  for (const c of cases) {
    const doc = await parseCase(readers!, c);
    if (!doc || doc.issues.some((i) => i.code === 'OCR_UNAVAILABLE')) continue;
    const lines = c.kind === 'invoice' ? expectedLines(c.file) : null;
    const out = await ex.extract({ doc, chunks: [], fields: lines ? [...c.fields, LINE_ITEMS] : c.fields });
    const fieldResults = out.fieldResults.filter((r) => r.field !== LINE_ITEMS.name);
    if (lines) {
      // line items: reference rows found (every listed property equal), evidence inside the document text
      const got = out.data[LINE_ITEMS.name] as unknown[] | null;
      const ok = rowsMatched(lines, got);
      rowsWant += lines.length;
      rowsOk += ok;
      const r = out.fieldResults.find((f) => f.field === LINE_ITEMS.name)!;
      rowReport.push(`${c.id}: ${ok}/${lines.length} rows (${got?.length ?? 0} extracted, confidence ${r.confidence})`);
      if (got?.length) {
        assert.ok(r.evidence?.span && doc.text.slice(r.evidence.span.start, r.evidence.span.end) === r.evidence.text, `${c.id} line items: evidence span`);
        assert.ok(r.confidence > 0 && r.confidence < 1, `${c.id} line items: confidence ${r.confidence}`);
      } else assert.equal(r.confidence, 0);
    }
    const located = c.format === 'pdf' ? pdfWords(c.file) : c.id.startsWith('sroie') ? sroieLines(c, doc) : doc.pages.flatMap((p) => (p.words ?? []).map((w) => ({ page: p.number, bbox: w.bbox, text: w.text })));
    for (const r of fieldResults as FieldResult[]) {
      const def = c.fields.find((f) => f.name === r.field)!;
      const ok = matches(def, r.value, c.expected[r.field]);
      all++;
      if (ok) allOk++;
      if (printed(doc, c, r.field)) {
        reach++;
        if (ok) reachOk++;
        else misses.push(`${c.id} ${r.field}: got ${JSON.stringify(r.value)}, want ${JSON.stringify(c.expected[r.field])}`);
      }
      if (r.value === null) {
        assert.deepEqual([r.confidence, r.evidence], [0, null]);
        continue;
      }
      const ev = r.evidence!;
      assert.ok(ev && ev.span && doc.text.slice(ev.span.start, ev.span.end) === ev.text, `${c.id} ${r.field}: evidence span`);
      const page = doc.pages.find((p) => p.number === ev.page);
      assert.ok(page, `${c.id} ${r.field}: evidence page ${ev.page}`);
      if (!ok || !ev.bbox || !located?.length) continue;
      // the evidence box overlaps a place where the value is printed (located independently of the reader where possible)
      const spots = whereIs(ev.text, located).filter((l) => l.page === ev.page);
      const wantSpots = spots.length ? spots : whereIs(String(c.expected[r.field]), located).filter((l) => l.page === ev.page);
      if (!wantSpots.length) continue;
      boxesChecked++;
      assert.ok(wantSpots.some((l) => overlaps(l.bbox, ev.bbox!)), `${c.id} ${r.field}: evidence box ${JSON.stringify(ev.bbox)} is not where "${ev.text}" is printed (${JSON.stringify(wantSpots.map((s) => s.bbox))})`);
    }
  }
  if (!all) {
    t.skip('no sample could be read (is tesseract installed?)');
    return;
  }
  const e2e = allOk / all, extraction = reachOk / Math.max(1, reach);
  console.log(`# corpus extraction: end-to-end ${allOk}/${all} = ${e2e.toFixed(3)}; over values printed in the parsed text ${reachOk}/${reach} = ${extraction.toFixed(3)}; ${boxesChecked} evidence boxes checked`);
  for (const m of misses) console.log(`#   miss ${m}`);
  console.log(`# corpus line items: ${rowsOk}/${rowsWant} reference rows found`);
  for (const l of rowReport) console.log(`#   ${l}`);
  assert.ok(extraction >= 0.8, `extraction accuracy ${extraction.toFixed(3)} < 0.8`);
  assert.ok(boxesChecked >= 10, `only ${boxesChecked} evidence boxes checked`);
  // rows of tables continued under a note line (headerless, merged cells) and aligned rows with a quantity
  // joined to the description are found; the AWS "Detail" list (no price header, per-service sub-rows) is not
  if (rowsWant) assert.ok(rowsOk >= 12, `line items: ${rowsOk}/${rowsWant} reference rows found, want at least 12`);
});
