/** csv through csv-parse, streamed: encoding detection on a sample, delimiter sniffing (, ; \t |), relaxed quotes. */
import fs from 'node:fs';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import type { SheetCell, SheetData } from './model.js';
import { looksNumeric } from './model.js';
import type { CellBudget } from './ooxml.js';
import { takeCell } from './ooxml.js';
import { decodeText, mojibakeBudget, repairMojibake } from '@quire/text';
import { checkAbort } from './util.js';

// on a tie the rarer character wins: a tab or semicolon on every line is stronger evidence than a comma
const CANDIDATES = ['\t', ';', '|', ','];

/** Picks the delimiter whose per-line count (outside quotes) is most consistent and non-zero. */
export function sniffDelimiter(sample: string): string {
  const lines = sample.split('\n').filter((l) => l.trim()).slice(0, 50);
  let best = ',';
  let bestScore = -1;
  for (const d of CANDIDATES) {
    const counts = lines.map((line) => {
      let n = 0;
      let quoted = false;
      for (const ch of line) {
        if (ch === '"') quoted = !quoted;
        else if (ch === d && !quoted) n++;
      }
      return n;
    });
    const freq = new Map<number, number>();
    for (const n of counts) if (n > 0) freq.set(n, (freq.get(n) ?? 0) + 1);
    if (!freq.size) continue;
    const [mode, times] = [...freq.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]!;
    const score = (times / counts.length) * 1000 + Math.min(mode, 100);
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/**
 * A CSV file, streamed: its cells decoded in the encoding found on its first 256 KB, and mojibake repaired cell by cell under
 * one repair budget for the file (`repaired`: some cell was).
 */
export async function readCsv(path: string, name: string, budget: CellBudget, signal: AbortSignal | undefined): Promise<{ sheet: SheetData; encoding: string; delimiter: string; repaired: boolean }> {
  // encoding and delimiter from the first 256 KB, cut at the last newline so no character is split
  const fd = await fs.promises.open(path, 'r');
  let sample: Buffer;
  try {
    const buf = Buffer.alloc(256 * 1024);
    const { bytesRead } = await fd.read(buf, 0, buf.length, 0);
    sample = buf.subarray(0, bytesRead);
  } finally {
    await fd.close();
  }
  const cut = sample.length === 256 * 1024 ? sample.lastIndexOf(0x0a) : -1;
  const { text, encoding } = decodeText(cut > 0 ? sample.subarray(0, cut + 1) : sample, null, { repair: false });
  const delimiter = sniffDelimiter(text);

  const parser = fs
    .createReadStream(path)
    .pipe(iconv.decodeStream(encoding))
    .pipe(parse({ delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, bom: true, trim: true, skip_records_with_error: true }));
  const onAbort = () => parser.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  const cells: SheetCell[] = [];
  const mojibake = mojibakeBudget();
  let repaired = false;
  let r = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (r % 1000 === 0) checkAbort(signal);
      for (let c = 0; c < record.length; c++) {
        const decoded = record[c]!;
        if (!decoded) continue;
        if (!takeCell(budget)) break;
        const t = repairMojibake(decoded, mojibake);
        if (t !== decoded) repaired = true;
        cells.push({ r, c, text: t, kind: looksNumeric(t) ? 'number' : 'text' });
      }
      if (budget.truncated) {
        parser.destroy();
        break;
      }
      r++;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  checkAbort(signal);
  return { sheet: { name, cells, merges: [] }, encoding, delimiter, repaired };
}
