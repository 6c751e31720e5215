import fs from 'node:fs';
import path from 'node:path';
import { groupLines, spacedBox } from '@quire/plugin-ocr-ppocr';
import { loadReceipts, receiptsDir, tight, verbatim as norm } from '../../../test/helpers/receipts.js';
const decoded = JSON.parse(fs.readFileSync('/tmp/a-ocrgap/cache.json', 'utf8'));
const field = process.argv[2] ?? 'company';
for (const r of loadReceipts(receiptsDir()!, {})) {
  const f = path.basename(r.file);
  const lines = groupLines(decoded[f].map((d: any) => spacedBox(d))).map((l) => l.text);
  const key = (r.key as any)[field];
  if (!key || norm(lines.join('\n')).includes(norm(key))) continue;
  const t = tight(key);
  const best = lines.map((l, i) => [i, l] as const).filter(([, l]) => { const a = tight(l); return [...t.slice(0, 6)].length && (a.includes(t.slice(0, 5)) || a.includes(t.slice(-5))); });
  console.log(`${f} KEY: ${key}\n   ${best.map(([i, l]) => `[${i}] ${l}`).join('\n   ') || lines.slice(0, 4).join(' | ')}`);
}
