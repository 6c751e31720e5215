/**
 * Edit detection and fill on the corpus AcroForms (the pdf-lib sample forms, fancy fields, the combed
 * government form, the character sheet) through the editor plugin, against the fields the manifest lists:
 *   - detection precision and recall per field type (text fields may be refined to date or number);
 *   - fill accuracy: every text field set to a Unicode value, every checkbox ticked, every radio and
 *     dropdown set to its last option, read back with pdf-lib;
 *   - seconds per page of detection and of fill.
 * No layout is passed (labels from tooltips and names), so this measures the AcroForm path only.
 *
 *   node --conditions=quire-source --import tsx bench/edit.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import plugin from '@quire/plugin-editor-pdf';
import type { EditorPlugin } from '@quire/core';

const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../shared/corpus');
const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
const entries = (Object.values(manifest.files ?? manifest) as any[]).filter((e) => e?.acroform && /^pdflib__/.test(e.id));
const editor = (plugin as any).create({ options: { maxBytes: 100 * 1024 * 1024 } }) as EditorPlugin;
const TYPE: Record<string, string> = { text: 'text', checkbox: 'checkbox', radio: 'radio', dropdown: 'dropdown', listbox: 'dropdown', signature: 'signature' };
const kind = (t: string) => (['text_field', 'date_field', 'number_field'].includes(t) ? 'text' : t);
const stats = new Map<string, { tp: number; fp: number; fn: number }>();
const st = (t: string) => stats.get(t) ?? (stats.set(t, { tp: 0, fp: 0, fn: 0 }), stats.get(t)!);
let pages = 0, detectS = 0, fillS = 0, fillOk = 0, fillAll = 0;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edit-bench-'));
for (const e of entries) {
  const file = path.join(CORPUS, e.path);
  const truth = new Map((e.acroform.fields as any[]).filter((f) => TYPE[f.type]).map((f) => [f.name, TYPE[f.type]!]));
  let t0 = performance.now();
  const els = await editor.detect(file, { format: 'pdf' });
  detectS += (performance.now() - t0) / 1000;
  pages += e.pages ?? 1;
  const got = new Map(els.map((x) => [x.id, kind(x.type)]));
  for (const [name, t] of truth) if (got.get(name) === t) st(t).tp++; else st(t).fn++;
  for (const [id, t] of got) if (truth.get(id) !== t) st(t).fp++;
  const values = els.filter((x) => x.type !== 'signature').map((x) => ({ element: x, value: x.type === 'checkbox' ? true : x.options?.length ? x.options[x.options.length - 1]! : x.max_length ? 'Ж'.repeat(Math.min(3, x.max_length)) : 'Ωμέγα Жук' }));
  t0 = performance.now();
  const out = await editor.fill(file, values as never, { format: 'pdf' });
  fillS += (performance.now() - t0) / 1000;
  const outPath = path.join(tmp, 'out.pdf');
  fs.writeFileSync(outPath, out.bytes);
  const back = await editor.readValues!(outPath, { format: 'pdf' });
  for (const v of values) {
    fillAll++;
    const b = back[v.element.id];
    const want = v.value;
    if (b === want || (Array.isArray(b) && b.join(',') === want) || String(b) === String(want)) fillOk++;
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`Edit bench: ${entries.length} corpus AcroForms, ${pages} pages\n`);
console.log('| field type | precision | recall | fields |\n|---|---|---|---|');
for (const [t, s] of stats) console.log(`| ${t} | ${(s.tp / Math.max(1, s.tp + s.fp)).toFixed(3)} | ${(s.tp / Math.max(1, s.tp + s.fn)).toFixed(3)} | ${s.tp + s.fn} |`);
console.log(`\nfill accuracy (read back with pdf-lib): ${fillOk}/${fillAll} = ${(fillOk / Math.max(1, fillAll)).toFixed(3)}`);
console.log(`seconds per page: detection ${(detectS / pages).toFixed(3)}, fill ${(fillS / pages).toFixed(3)}`);
