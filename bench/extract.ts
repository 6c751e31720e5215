/**
 * Extraction benchmark over the shared corpus's invoices (expected_fields_json) and receipts
 * (key_fields_json): field-level exact-match accuracy (after normalisation) per field type, line items
 * by row, per-document scalar accuracy with the fields missed, calibration (among values given with confidence
 * ≥ 0.8, the share that is right), and documents per second, for the offline and the agentic mode. Documents
 * are parsed once with the repository's readers and cached (see PARSE_CACHE; `--no-cache` reads again);
 * parse time is reported apart from extraction time.
 *
 *   node --conditions=quire-source --import tsx bench/extract.ts [--no-cache]   (QUIRE_CORPUS=/path/to/corpus to point elsewhere)
 */
import { DocumentBuilder, type FieldDefinition, type ParsedDocument } from '@quire/core';
import { createExtractor } from '@quire/plugin-extractor-layout';
import { CORPUS, corpusCases, loadReaders, parseCached, matches, LINE_ITEMS, expectedLines, rowsMatched } from '../plugins/extractor-layout/test/corpus-cases.js';

/** A long synthetic invoice (many pages of line items) to see how extraction time grows with size. */
function bigInvoice(pages: number): ParsedDocument {
  const b = new DocumentBuilder('big', 'big.pdf', 'pdf');
  for (let p = 1; p <= pages; p++) {
    b.addPage({ number: p, width: 595, height: 842, ocr: false, confidence: 1 });
    if (p === 1) b.addBlock({ type: 'paragraph', text: 'ACME Ltd.\nInvoice No: B-1\nInvoice Date: 2024-01-31\nCurrency: EUR', page: 1, bbox: null, confidence: 1 });
    for (let k = 0; k < 3; k++) b.addBlock({ type: 'paragraph', text: `Page ${p} notes ${k}: lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.`, page: p, bbox: null, confidence: 1 });
    const rows = [['Description', 'Qty', 'Unit Price', 'Amount'], ...Array.from({ length: 25 }, (_, i) => [`Item ${p}-${i}`, '2', '10.00', '20.00'])];
    b.addTable({ page: p, bbox: null, rows: rows.length, cols: 4, confidence: 1, cells: rows.flatMap((r, ri) => r.map((text, c) => ({ row: ri, col: c, rowSpan: 1, colSpan: 1, text, header: ri === 0 }))) });
  }
  b.addBlock({ type: 'paragraph', text: `Subtotal: ${(pages * 500).toFixed(2)}\nTax: 0.00\nTotal: ${(pages * 500).toFixed(2)}`, page: pages, bbox: null, confidence: 1 });
  return b.build();
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

async function main() {
  const cases = corpusCases();
  if (!cases.length) {
    console.log(`no corpus at ${CORPUS} (set QUIRE_CORPUS)`);
    return;
  }
  let readers: ReturnType<typeof loadReaders> | undefined;
  const getReaders = () => (readers ??= loadReaders());
  const docs: { c: (typeof cases)[number]; doc: ParsedDocument; lines: Record<string, unknown>[] | null }[] = [];
  let parseMs = 0;
  for (const c of cases) {
    const t0 = performance.now();
    const got = await parseCached(getReaders, c, process.argv.includes('--no-cache')).catch((e) => {
      console.log(`parse failed ${c.id}: ${(e as Error).message}`);
      return null;
    });
    parseMs += performance.now() - t0;
    if (!got?.doc) {
      console.log(`skipped ${c.id} (no reader for ${c.format})`);
      continue;
    }
    docs.push({ c, doc: got.doc, lines: expectedLines(c.file) });
  }
  const ex = createExtractor({ use: (() => undefined) as any });
  console.log(`\ncorpus: ${docs.length} documents (${docs.filter((d) => d.c.kind === 'invoice').length} invoices, ${docs.filter((d) => d.c.kind === 'receipt').length} receipts); parse ${(parseMs / 1000).toFixed(1)} s in all\n`);
  console.log(`${pad('mode', 9)}| ${pad('field type', 12)}| ${lpad('fields', 6)} | ${lpad('correct', 7)} | ${lpad('accuracy', 8)}`);
  console.log(`${'-'.repeat(9)}+${'-'.repeat(13)}+${'-'.repeat(8)}+${'-'.repeat(9)}+${'-'.repeat(9)}`);
  const speed: string[] = [];
  const perDoc: string[] = [];
  const scalarDoc: string[] = [];
  const calib = { n: 0, ok: 0 };
  for (const mode of ['offline', 'agentic'] as const) {
    const byType = new Map<string, { n: number; ok: number }>();
    const add = (type: string, n: number, ok: number) => {
      const e = byType.get(type) ?? { n: 0, ok: 0 };
      e.n += n;
      e.ok += ok;
      byType.set(type, e);
    };
    const settings = { agenticExtractionMode: mode === 'agentic' };
    const runs = 5;
    const t0 = performance.now();
    for (let r = 0; r < runs; r++) {
      for (const { c, doc, lines } of docs) {
        const fields = lines ? [...c.fields, LINE_ITEMS] : c.fields;
        const out = await ex.extract({ doc, chunks: [], fields, settings });
        if (r > 0) continue;
        const missed: string[] = [];
        for (const f of c.fields) {
          const ok = matches(f, out.data[f.name], c.expected[f.name]) ? 1 : 0;
          add(f.type, 1, ok);
          add('all scalar', 1, ok);
          const conf = out.fieldResults.find((x) => x.field === f.name)?.confidence ?? 0;
          if (mode === 'offline' && out.data[f.name] != null && conf >= 0.8) {
            calib.n++;
            calib.ok += ok;
          }
          if (!ok) missed.push(`${f.name}=${JSON.stringify(out.data[f.name] ?? null)} (${conf.toFixed(2)}, want ${JSON.stringify(c.expected[f.name])})`);
        }
        if (mode === 'offline') {
          const right = c.fields.length - missed.length;
          scalarDoc.push(`${pad(c.id, 40)}| ${pad(c.kind, 8)}| ${lpad(right, 5)} | ${lpad(c.fields.length, 3)} | ${lpad(c.fields.length ? (right / c.fields.length).toFixed(3) : '-', 8)} | ${missed.join('; ')}`);
        }
        if (!lines) continue;
        const ok = rowsMatched(lines, out.data.line_items);
        add('array rows', lines.length, ok);
        if (mode === 'offline') perDoc.push(`${pad(c.id, 40)}| ${lpad(ok, 5)} | ${lpad(lines.length, 8)} | ${lpad((out.data.line_items as unknown[] | null)?.length ?? 0, 9)} | ${lpad(out.fieldResults.find((f) => f.field === 'line_items')!.confidence.toFixed(2), 10)}`);
      }
    }
    const secs = (performance.now() - t0) / 1000;
    for (const type of ['string', 'number', 'date', 'all scalar', 'array rows']) {
      const e = byType.get(type);
      if (!e) continue;
      console.log(`${pad(mode, 9)}| ${pad(type, 12)}| ${lpad(e.n, 6)} | ${lpad(e.ok, 7)} | ${lpad((e.ok / e.n).toFixed(3), 8)}`);
    }
    speed.push(`${pad(mode, 9)}| ${lpad(((runs * docs.length) / secs).toFixed(1), 10)} | ${lpad(((secs * 1000) / (runs * docs.length)).toFixed(1), 10)}`);
  }
  console.log(`\nscalar fields per document (offline):\n${pad('document', 40)}| ${pad('kind', 8)}| ${lpad('right', 5)} | ${lpad('of', 3)} | ${lpad('accuracy', 8)} | missed`);
  for (const l of scalarDoc) console.log(l);
  console.log(`calibration (offline): ${calib.ok} of ${calib.n} scalar values given with confidence ≥ 0.8 are right (${calib.n ? ((100 * calib.ok) / calib.n).toFixed(1) : '-'} %)`);
  console.log(`\nline items per invoice (offline):\n${pad('document', 40)}| ${lpad('found', 5)} | ${lpad('expected', 8)} | ${lpad('extracted', 9)} | ${lpad('confidence', 10)}`);
  for (const l of perDoc) console.log(l);
  console.log(`\n${pad('mode', 9)}| ${lpad('docs/s', 10)} | ${lpad('ms/doc', 10)}   (extraction only, parsed documents in memory)`);
  console.log(`${'-'.repeat(9)}+${'-'.repeat(12)}+${'-'.repeat(11)}`);
  for (const s of speed) console.log(s);
  console.log(`parse: ${(docs.length / (parseMs / 1000)).toFixed(2)} docs/s (readers, OCR included)`);

  console.log(`\nsynthetic invoice, 16 fields + line items:`);
  console.log(`${lpad('pages', 6)} | ${lpad('chars', 8)} | ${lpad('offline ms', 10)} | ${lpad('agentic ms', 10)} | ${lpad('rows', 5)}`);
  const fields: FieldDefinition[] = [
    ...['invoice_number', 'vendor', 'currency', 'customer', 'iban', 'email'].map((name) => ({ name, type: 'string' as const })),
    ...['date', 'due_date'].map((name) => ({ name, type: 'date' as const })),
    ...['subtotal', 'tax', 'total', 'discount', 'shipping'].map((name) => ({ name, type: 'number' as const })),
    LINE_ITEMS,
  ];
  for (const pages of [1, 10, 40]) {
    const doc = bigInvoice(pages);
    const t1 = performance.now();
    const off = await ex.extract({ doc, chunks: [], fields });
    const t2 = performance.now();
    await ex.extract({ doc, chunks: [], fields, settings: { agenticExtractionMode: true } });
    const t3 = performance.now();
    console.log(`${lpad(pages, 6)} | ${lpad(doc.text.length, 8)} | ${lpad((t2 - t1).toFixed(0), 10)} | ${lpad((t3 - t2).toFixed(0), 10)} | ${lpad((off.data.line_items as unknown[] | null)?.length ?? 0, 5)}`);
  }
}

await main();
