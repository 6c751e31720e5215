/**
 * The shared corpus's extraction samples (invoices with expected_fields_json, receipts with
 * key_fields_json) as extraction cases: field definitions for the expected keys that name printed values,
 * readers to parse the files, and the comparison used by the corpus test and bench/extract.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pluginContext, type FieldDefinition, type ParsedDocument, type ReaderPlugin } from '@quire/core';
import { normaliseValue } from '@quire/fields';

export const CORPUS = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));

/**
 * Expected key → field definition. Keys left out are not printed as such (template artefacts like
 * "desc": "Invoice from ...", the issuer short name, notes) or are compound (lines: see LINE_FIELDS).
 */
export const INVOICE_FIELDS: Record<string, FieldDefinition> = {
  invoice_number: { name: 'invoice_number', type: 'string', description: 'Invoice number' },
  date: { name: 'date', type: 'date', description: 'Invoice date' },
  amount: { name: 'total', type: 'number', description: 'Total amount' },
  amount_untaxed: { name: 'subtotal', type: 'number', description: 'Amount before tax' },
  currency: { name: 'currency', type: 'string', description: 'Currency code' },
  vat: { name: 'vat_id', type: 'string', description: 'VAT identification number' },
  iban: { name: 'iban', type: 'string' },
  bic: { name: 'bic', type: 'string' },
  partner_name: { name: 'vendor', type: 'string', description: 'Seller company name' },
  date_check_in: { name: 'check_in', type: 'date' },
  date_check_out: { name: 'check_out', type: 'date' },
  booking_id: { name: 'booking_id', type: 'string' },
  payment_method: { name: 'payment_method', type: 'string' },
  gstin: { name: 'gstin', type: 'string' },
  cin: { name: 'cin', type: 'string' },
  hotel_details: { name: 'hotel_details', type: 'string' },
  amount_rooms: { name: 'rooms', type: 'number' },
};

export const RECEIPT_FIELDS: Record<string, FieldDefinition> = {
  company: { name: 'company', type: 'string', description: 'Company name' },
  date: { name: 'date', type: 'date' },
  address: { name: 'address', type: 'string' },
  total: { name: 'total', type: 'number' },
};

/**
 * Reference values that are artefacts of the reference's templates rather than what their key says
 * (the corpus README warns about these); they are left out of the comparison, with the reason.
 */
export const ARTEFACTS: { file: RegExp; key: string; why: string }[] = [
  { file: /^invoice2data__AmazonWebServices\./, key: 'amount_untaxed', why: 'no untaxed amount is printed; the template copies the total' },
  { file: /^invoice2data__QualityHosting\./, key: 'amount_untaxed', why: 'no untaxed amount is printed; the template copies the total' },
  { file: /^invoice2data__oyo\./, key: 'invoice_number', why: 'the receipt prints no invoice number; the template records the booking id' },
  { file: /^invoice2data__coolblue1\./, key: 'payment_method', why: 'printed only inside a payment history line, with no label' },
];

export interface CorpusCase {
  id: string;
  file: string;
  format: string;
  kind: 'invoice' | 'receipt';
  /** expected values keyed by field name */
  expected: Record<string, unknown>;
  fields: FieldDefinition[];
}

export function corpusCases(): CorpusCase[] {
  const manifestPath = path.join(CORPUS, 'manifest.json');
  if (!fs.existsSync(manifestPath)) return [];
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { files: { id: string; path: string; format: string; ground_truth?: { path: string; kind: string }[] }[] };
  const out: CorpusCase[] = [];
  for (const f of manifest.files) {
    const gt = f.ground_truth?.find((g) => g.kind === 'expected_fields_json' || g.kind === 'key_fields_json');
    if (!gt) continue;
    const raw = JSON.parse(fs.readFileSync(path.join(CORPUS, gt.path), 'utf8'));
    const exp = (Array.isArray(raw) ? raw[0] : raw) as Record<string, unknown>;
    const kind = gt.kind === 'key_fields_json' ? 'receipt' : 'invoice';
    const map = kind === 'receipt' ? RECEIPT_FIELDS : INVOICE_FIELDS;
    const fields: FieldDefinition[] = [];
    const expected: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(exp)) {
      const def = map[k];
      if (!def || v === null || v === '' || ARTEFACTS.some((a) => a.key === k && a.file.test(f.id))) continue;
      fields.push(def);
      expected[def.name] = v;
    }
    out.push({ id: f.id, file: path.join(CORPUS, f.path), format: f.format, kind, expected, fields });
  }
  return out;
}

/** Exact match after normalisation (numbers, ISO dates, case/spacing of strings). Expected dates are day first. */
export function matches(field: FieldDefinition, got: unknown, want: unknown): boolean {
  const a = normaliseValue(got, field, { dateOrder: 'DMY' });
  const b = normaliseValue(want, field, { dateOrder: 'DMY' });
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** Line items as the invoices' references list them ("lines"), with the properties the references name. */
export const LINE_ITEMS: FieldDefinition = {
  name: 'line_items',
  type: 'array',
  items: {
    name: 'item',
    type: 'object',
    properties: {
      description: { name: 'description', type: 'string' },
      quantity: { name: 'quantity', type: 'number' },
      unit_price: { name: 'unit_price', type: 'number' },
      amount: { name: 'amount', type: 'number' },
    },
  },
};
/** reference line keys → our line item properties (others, like line notes and tax percents, are left out) */
const LINE_KEYS: Record<string, string> = { name: 'description', desc: 'description', qty: 'quantity', price_unit: 'unit_price', price: 'unit_price', price_subtotal: 'amount' };

/** The reference's line items of an invoice file, keyed like LINE_ITEMS (null when it lists none). */
export function expectedLines(file: string): Record<string, unknown>[] | null {
  const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
  const entry = manifest.files.find((f: any) => path.join(CORPUS, f.path) === file);
  const gt = entry?.ground_truth?.find((g: any) => g.kind === 'expected_fields_json');
  if (!gt) return null;
  const raw = JSON.parse(fs.readFileSync(path.join(CORPUS, gt.path), 'utf8'));
  const lines = (Array.isArray(raw) ? raw[0] : raw).lines as Record<string, unknown>[] | undefined;
  if (!lines?.length) return null;
  return lines
    .map((l) => Object.fromEntries(Object.entries(l).filter(([k]) => LINE_KEYS[k]).map(([k, v]) => [LINE_KEYS[k]!, v])))
    .filter((l) => Object.keys(l).length > 0);
}

/** Expected rows found among the extracted rows (every expected property equal after normalisation; each row used once). */
export function rowsMatched(want: Record<string, unknown>[], got: unknown): number {
  if (!Array.isArray(got)) return 0;
  const props = LINE_ITEMS.items!.properties!;
  const left = [...got] as Record<string, unknown>[];
  let n = 0;
  for (const w of want) {
    const i = left.findIndex((g) => Object.entries(w).every(([k, v]) => JSON.stringify(normaliseValue(g[k], props[k]!)) === JSON.stringify(normaliseValue(v, props[k]!))));
    if (i >= 0) {
      n++;
      left.splice(i, 1);
    }
  }
  return n;
}

/** Readers for the corpus formats, when their plugins are in the repository (null otherwise). */
export async function loadReaders(): Promise<Map<string, ReaderPlugin> | null> {
  const imp = async (name: string) => {
    try {
      return (await import(name)).default;
    } catch {
      return null;
    }
  };
  const [pdf, image, ocr] = await Promise.all([imp('@quire/plugin-reader-pdf'), imp('@quire/plugin-reader-image'), imp('@quire/plugin-ocr-tesseract')]);
  if (!image || !ocr) return null;
  const plugins: Record<string, unknown> = {};
  const ctx = (plugin: Parameters<typeof pluginContext>[0], options: Record<string, unknown> = {}) =>
    pluginContext(plugin, { options, shared: { 'ocr.concurrency': 1 }, dataDir: os.tmpdir(), get: ((kind: string) => plugins[kind]) as any, tryGet: ((kind: string) => plugins[kind]) as any });
  plugins.ocr = await ocr.create(ctx(ocr, { binary: process.env.QUIRE_TESSERACT_PATH ?? 'tesseract' }));
  const readers = new Map<string, ReaderPlugin>();
  const img = (await image.create(ctx(image))) as ReaderPlugin;
  for (const f of image.formats.map((d: { format: string }) => d.format)) readers.set(f, img);
  readers.set('jpg', img);
  readers.set('png', img);
  if (pdf) {
    const p = (await pdf.create(ctx(pdf, { workers: 1 }))) as ReaderPlugin;
    readers.set('pdf', p);
  }
  return readers;
}

export async function parseCase(readers: Map<string, ReaderPlugin>, c: CorpusCase): Promise<ParsedDocument | null> {
  const reader = readers.get(c.format);
  if (!reader) return null;
  return reader.read({ path: c.file, name: path.basename(c.file), format: c.format, size: fs.statSync(c.file).size, documentId: c.id }, { ocr: { enabled: 'auto', language: 'eng' } });
}

/** Where benches keep parsed documents: `$TMPDIR/quire-bench-cache/<sha256 of the file>.json` (outside the repository). */
export const PARSE_CACHE = path.join(os.tmpdir(), 'quire-bench-cache');

/**
 * parseCase through a cache of parsed documents keyed by the file's SHA-256 (OCR of a scan takes a second or
 * two; extraction then costs milliseconds). `readers` is loaded lazily, only for files not cached yet.
 * `fresh` reads again and rewrites the cache.
 */
export async function parseCached(getReaders: () => Promise<Map<string, ReaderPlugin> | null>, c: CorpusCase, fresh = false): Promise<{ doc: ParsedDocument | null; cached: boolean }> {
  const hash = crypto.createHash('sha256').update(fs.readFileSync(c.file)).digest('hex');
  const at = path.join(PARSE_CACHE, `${hash}.json`);
  if (!fresh && fs.existsSync(at)) return { doc: JSON.parse(fs.readFileSync(at, 'utf8')) as ParsedDocument, cached: true };
  const readers = await getReaders();
  if (!readers) return { doc: null, cached: false };
  const doc = await parseCase(readers, c);
  if (doc) {
    fs.mkdirSync(PARSE_CACHE, { recursive: true });
    fs.writeFileSync(at, JSON.stringify(doc));
  }
  return { doc, cached: false };
}
