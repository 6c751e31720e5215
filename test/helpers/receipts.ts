/**
 * The corpus's scanned receipts (`<corpus>/receipts/`: files/<name>.jpg and key/<name>.json with the key values
 * company, date, total, address) and the one way they are matched against a text, shared by the receipts
 * benches (bench/ocr.ts, plugins/ocr-ppocr/bench/) and the receipts test of the image reader.
 */
import fs from 'node:fs';
import path from 'node:path';

export const RECEIPT_FIELDS = ['company', 'date', 'total', 'address'] as const;
export type ReceiptField = (typeof RECEIPT_FIELDS)[number];

export interface Receipt {
  /** the file's name without its extension (sroie__101) */
  id: string;
  /** the image's path */
  file: string;
  key: Partial<Record<ReceiptField, string>>;
}

/** The receipts folder: env QUIRE_CORPUS, else ../shared/corpus next to the project root; null when it has no files and keys. */
export function receiptsDir(corpus = process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../shared/corpus')): string | null {
  const dir = path.join(path.resolve(corpus), 'receipts');
  return fs.existsSync(path.join(dir, 'key')) && fs.existsSync(path.join(dir, 'files')) ? dir : null;
}

/**
 * The receipts that have both an image and a key, sorted by name. `only`: ids ending with one of these;
 * `parity`: receipts whose number is even (0) or odd (1); `limit`: the first N after that.
 */
export function loadReceipts(dir: string, select: { only?: string[]; parity?: 0 | 1; limit?: number } = {}): Receipt[] {
  const files = fs.readdirSync(path.join(dir, 'files'));
  const byId = new Map(files.map((f) => [f.replace(/\.[^.]+$/, ''), f]));
  let out = fs
    .readdirSync(path.join(dir, 'key'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const id = f.slice(0, -'.json'.length);
      const img = byId.get(id);
      return img ? [{ id, file: path.join(dir, 'files', img), key: JSON.parse(fs.readFileSync(path.join(dir, 'key', f), 'utf8')) as Receipt['key'] }] : [];
    });
  if (select.only?.length) out = out.filter((c) => select.only!.some((o) => c.id.endsWith(o)));
  if (select.parity !== undefined) out = out.filter((c) => Number(/(\d+)$/.exec(c.id)?.[1] ?? 0) % 2 === select.parity);
  if (select.limit && select.limit > 0) out = out.slice(0, select.limit);
  return out;
}

/** Verbatim: lower case, white-space runs collapsed; a key value counts when it is a substring of the text so normalised. */
export const verbatim = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
/** Loose (for information): letters and digits only, lower case. */
export const loose = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
/** Spaces aside (for information): lower case, every white space removed. */
export const tight = (s: string) => s.toLowerCase().replace(/\s+/g, '');

/** Whether a receipt's key value appears verbatim in a text. */
export const foundVerbatim = (text: string, value: string) => verbatim(text).includes(verbatim(value));
