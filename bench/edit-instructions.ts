/**
 * Plain-language instructions on the corpus AcroForms (bench/fixtures/edit-instructions.json: a few values a
 * form, written from its printed labels alone, in English and other languages, with the field each value belongs in). Per form, the
 * engine's offline reading of the instructions (applyOffline) against the fields the editor detects with
 * the printed words as layout (pdftotext -bbox), the fill through the editor plugin and its read-back:
 *   - right / wrong / missing of the values asked for (read back from the output, compared by value);
 *   - values written into a field that was not asked for, and those of another type (a name in a date field);
 *   - verification: a form whose read-back differs from what was asked must fail it ("false passes").
 *
 *   node --conditions=quire-source --import tsx bench/edit-instructions.ts [--dump] [--set bench/fixtures/edit-instructions-heldout.json]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import plugin from '@quire/plugin-editor-pdf';
import type { EditElement, EditLayout, EditorPlugin, Word } from '@quire/core';
import { parseDate, parseNumber } from '@quire/fields';
import { applyOffline } from '../core/engine/src/edit/instructions.js';

const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../shared/corpus');
const DATA = JSON.parse(fs.readFileSync(process.argv.includes('--set') ? path.resolve(process.argv[process.argv.indexOf('--set') + 1]!) : path.join(import.meta.dirname, 'fixtures/edit-instructions.json'), 'utf8')) as { forms: { file: string; lang?: string; instructions: string; expected: Record<string, string | boolean> }[] };
const editor = (plugin as any).create({ options: { maxBytes: 100 * 1024 * 1024 } }) as EditorPlugin;
// the verification's comparison of a read-back value with the value asked for (values.ts); where the
// checkout has none, the comparison verification made before: the read-back against the value written
const values = await import('../core/engine/src/edit/values.js' as string).catch(() => null);
const norm = (s: unknown) => String(s ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[\s.,:;/\\\-_'"()]+/g, '');

/** Words with boxes (top-left points) of each page, from pdftotext -bbox. */
function layoutOf(file: string): EditLayout {
  const html = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  const pages: EditLayout['pages'] = [];
  for (const pm of html.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)) {
    const words: Word[] = [];
    for (const w of pm[3]!.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      const [x0, y0, x1, y1] = [1, 2, 3, 4].map((i) => Number(w[i]));
      const text = w[5]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'");
      words.push({ text, bbox: { x: x0!, y: y0!, width: x1! - x0!, height: y1! - y0! } } as Word);
    }
    pages.push({ number: pages.length + 1, width: Number(pm[1]), height: Number(pm[2]), words });
  }
  return { pages };
}

/**
 * The bench's own comparison (apart from the engine's): equal without case, spaces and punctuation, as
 * dates, as digits of an identifier, as sets of options, as yes/no.
 */
function byValue(got: unknown, want: unknown): boolean {
  if (typeof want === 'boolean' || typeof got === 'boolean') return String(got) === String(want);
  const g = Array.isArray(got) ? got.join(', ') : String(got ?? ''), w = String(want ?? '');
  if (norm(g) === norm(w)) return norm(w) !== '';
  const set = (t: string) => t.split(/\s*,\s*/).map(norm).sort().join('|');
  if (Array.isArray(got)) return set(g) === set(w);
  for (const order of ['DMY', 'MDY'] as const) {
    const dg = parseDate(g, { order }), dw = parseDate(w, { order });
    if (dg && dw && dg === dw) return true;
  }
  if (/^[\d\s\-./()+]+$/.test(g) && /^[\d\s\-./()+]+$/.test(w)) return g.replace(/\D/g, '') === w.replace(/\D/g, '');
  return false;
}

/** The kind of a value: a date, a number, a yes/no, or text. */
const kindOf = (v: unknown) => (typeof v === 'boolean' ? 'boolean' : parseDate(String(v)) ? 'date' : parseNumber(String(v)) !== null ? 'number' : 'text');
/** Whether a field of this type takes a value of that kind. */
const takes = (e: EditElement, v: unknown) => {
  const k = kindOf(v);
  if (e.type === 'checkbox') return k === 'boolean' || ['true', 'false'].includes(String(v));
  if (e.type === 'date_field') return k === 'date';
  if (e.type === 'number_field') return k === 'number';
  if (e.type === 'radio' || e.type === 'dropdown') return String(v).split(e.multi ? /\s*,\s*/ : /$^/).every((o) => (e.options ?? []).includes(o));
  return k !== 'boolean';
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edit-instr-'));
const rows: string[] = [];
let right = 0, wrong = 0, missing = 0, asked = 0, stray = 0, otherType = 0, falsePass = 0, failsRight = 0, forms = 0;
const spread: number[] = [];
const byLang = new Map<string, { right: number; asked: number; otherType: number }>();
try {
  for (const form of DATA.forms) {
    const file = path.join(CORPUS, 'files', form.file);
    const layout = layoutOf(file);
    const elements = await editor.detect(file, { format: 'pdf', layout });
    if (process.argv.includes('--dump')) {
      console.log(`== ${form.file}`);
      for (const e of elements.filter((x) => x.page === 1)) console.log(JSON.stringify({ id: e.id, type: e.type, label: e.label, max_length: e.max_length, format: e.format, options: e.options, option_labels: e.option_labels }));
      continue;
    }
    const derived = applyOffline(form.instructions, elements, []);
    const byId = new Map(elements.map((e) => [e.id, e]));
    const fills = derived.map((d) => ({ element: byId.get(d.elementId)!, value: d.value }));
    const out = await editor.fill(file, fills as never, { format: 'pdf' });
    const outPath = path.join(tmp, 'out.pdf');
    fs.writeFileSync(outPath, out.bytes);
    const back = await editor.readValues!(outPath, { format: 'pdf' });
    const applied = new Map(out.applied.map((a) => [a.id, a.value]));
    // verification as the engine does it: each filled field's read-back against the value asked for
    const mismatched = derived.filter((d) => {
      const e = byId.get(d.elementId)!;
      const got = back[e.field_name ?? e.id];
      if (!applied.has(d.elementId)) return true;
      return values ? !values.sameValue(e, got, d.value) : typeof got === 'boolean' ? String(got) !== String(applied.get(d.elementId)) : norm(Array.isArray(got) ? got.join(',') : got) !== norm(applied.get(d.elementId));
    });
    const pass = mismatched.length === 0;
    let r = 0, w = 0, m = 0, st = 0, ot = 0;
    const notes: string[] = [];
    for (const [name, want] of Object.entries(form.expected)) {
      const e = elements.find((x) => (x.field_name ?? x.id) === name);
      const got = back[name];
      const filled = derived.some((d) => byId.get(d.elementId)?.field_name === name);
      const same = byValue(got, want);
      if (filled && (same || (typeof want === 'boolean' && got === want))) r++;
      else if (filled) {
        w++;
        notes.push(`wrong ${name}: ${JSON.stringify(got)} (asked ${JSON.stringify(want)})`);
      } else {
        m++;
        notes.push(`missing ${name}`);
      }
    }
    for (const d of derived) {
      const e = byId.get(d.elementId)!;
      const name = e.field_name ?? e.id;
      if (!(name in form.expected)) {
        st++;
        notes.push(`stray ${name} ("${e.label}") = ${JSON.stringify(d.value)}`);
      }
      if (!takes(e, d.value)) {
        ot++;
        notes.push(`other type: ${e.type} ${name} = ${JSON.stringify(d.value)}`);
      }
    }
    // a false pass: verification passed though a field's read-back differs from the value the engine meant to
    // write there (read from the instructions); a false failure: it failed though every read-back is that value
    const differs = derived.some((d) => { const e = byId.get(d.elementId)!; return !byValue(back[e.field_name ?? e.id], d.value); });
    const allRight = !differs;
    if (pass && differs) falsePass++;
    if (!pass && allRight) failsRight++;
    const n = Object.keys(form.expected).length;
    right += r; wrong += w; missing += m; asked += n; stray += st; otherType += ot; forms++;
    spread.push(r / n);
    const lg = byLang.get(form.lang ?? 'en') ?? { right: 0, asked: 0, otherType: 0 };
    lg.right += r; lg.asked += n; lg.otherType += ot;
    byLang.set(form.lang ?? 'en', lg);
    rows.push(`| ${form.file} | ${form.lang ?? 'en'} | ${n} | ${r} | ${w} | ${m} | ${st} | ${ot} | ${pass ? 'pass' : `fail (${mismatched.length})`} |`);
    if (process.argv.includes('-v')) for (const x of notes) console.log(`  ${form.file}: ${x}`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (!process.argv.includes('--dump')) {
  console.log(`Instruction fills on ${forms} corpus AcroForms (${values ? 'verification by value' : 'verification against the value written'})\n`);
  console.log('| form | language | asked | right | wrong | missing | stray | other type | verification |\n|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  spread.sort((a, b) => a - b);
  console.log(`\nright ${right}/${asked} = ${(right / Math.max(1, asked)).toFixed(3)} (per form min ${spread[0]?.toFixed(2)}, median ${spread[Math.floor(spread.length / 2)]?.toFixed(2)}, max ${spread.at(-1)?.toFixed(2)}); wrong ${wrong}, missing ${missing}, stray ${stray}, into a field of another type ${otherType}`);
  console.log(`\n| language | right | asked | share | other type |\n|---|---|---|---|---|`);
  for (const [lg, v] of byLang) console.log(`| ${lg} | ${v.right} | ${v.asked} | ${(v.right / Math.max(1, v.asked)).toFixed(3)} | ${v.otherType} |`);
  console.log(`verification: false passes (a read-back differs from the value meant, yet "pass") ${falsePass}/${forms} forms; failures although every read-back is the value meant ${failsRight}`);
}
