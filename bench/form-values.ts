/**
 * Prefilled values of the corpus AcroForms in the text a parse gives (what search, chat and extraction
 * read): every field the manifest lists with a value. A text, dropdown or list value is found when its
 * text (spaces collapsed; each line of a multi-line value, in order) is in the document's text; a ticked
 * checkbox when the text has ☒ and its form field says true; a chosen radio button when its field holds
 * a value. Read through the PDF reader plugin, as the parse stage reads.
 *
 *   node --conditions=quire-source --import tsx bench/form-values.ts [-v]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFNumber, PDFString, StandardFonts } from 'pdf-lib';
import { pluginContext, silentLogger } from '@quire/core';
import pdfPlugin from '@quire/plugin-reader-pdf';
import type { PdfReader } from '@quire/plugin-reader-pdf';

const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../shared/corpus');
const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
const verbose = process.argv.includes('-v');
const forms = (manifest.files as any[]).filter((e) => e.format === 'pdf' && (e.acroform?.fields ?? []).some((f: any) => f.value !== undefined));
const reader = pdfPlugin.create(pluginContext(pdfPlugin, { options: { workers: 1, prestart: false }, logger: silentLogger })) as unknown as PdfReader;
const squash = (s: string) => s.normalize('NFKC').replace(/\s+/g, ' ').trim();
const byKind = new Map<string, { found: number; all: number }>();
const perForm: number[] = [];
console.log(`Prefilled values in the parsed text: ${forms.length} corpus AcroForms\n`);
console.log('| form | found | values |\n|---|---|---|');
for (const e of forms) {
  const file = path.join(CORPUS, e.path);
  const doc = await reader.read({ path: file, name: path.basename(file), format: 'pdf', size: fs.statSync(file).size, documentId: e.id }, {} as never);
  const text = squash(doc.text);
  const fields = new Map(((doc.metadata.form_fields ?? []) as any[]).map((f) => [f.name, f]));
  let found = 0, all = 0;
  for (const f of e.acroform.fields as any[]) {
    if (f.value === undefined) continue;
    const kind = f.type === 'checkbox' || f.type === 'radio' ? f.type : f.type === 'text' ? 'text' : 'choice';
    let ok: boolean;
    if (kind === 'checkbox') ok = fields.get(f.name)?.value === true && text.includes('\u2612');
    else if (kind === 'radio') ok = typeof fields.get(f.name)?.value === 'string';
    else {
      const want = (Array.isArray(f.value) ? f.value : [f.value]).map((v: string) => squash(String(v).replace(/^\//, '')));
      ok = want.every((w: string) => text.includes(w));
    }
    const k = byKind.get(kind) ?? { found: 0, all: 0 };
    k.all++; all++;
    if (ok) (k.found++, found++);
    else if (verbose) console.error(`  missed ${e.id} ${f.name} (${f.type}) = ${JSON.stringify(f.value)}`);
    byKind.set(kind, k);
  }
  perForm.push(found / all);
  console.log(`| ${e.id} | ${found} | ${all} |`);
}

const tot = [...byKind.values()].reduce((a, k) => ({ found: a.found + k.found, all: a.all + k.all }), { found: 0, all: 0 });
console.log('\n| kind | found | values |\n|---|---|---|');
for (const [k, v] of byKind) console.log(`| ${k} | ${v.found} | ${v.all} |`);
const sorted = [...perForm].sort((a, b) => a - b);
console.log(`\nall: ${tot.found}/${tot.all}; share found per form min / median / max: ${sorted[0]?.toFixed(2)} / ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} / ${sorted.at(-1)?.toFixed(2)}`);

// ---------------------------------------------------------------------------------------------------
// Generated forms: the ways a form stores a value that the corpus forms do not use. 24 forms, each with a
// multi-choice list (two or three chosen), a dropdown with export values and display labels, and a
// multi-line text field; the storage rotates through: values as strings, as names, as an array of names,
// as indices only (/I); text as a string or a stream, lines ending in CR, CR LF or LF.
const LANGS = [['py', 'Python'], ['ts', 'TypeScript'], ['go', 'Go lang'], ['rs', 'Rust lang'], ['kt', 'Kotlin'], ['cs', 'C sharp']] as [string, string][];
const FILMS = [['1', 'Casablanca (Curtiz)'], ['2', 'Young Abraham Lincoln (Ranger Ed)'], ['3', 'Metropolis (Lang)'], ['4', 'Stagecoach (Ford)']] as [string, string][];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'form-values-'));
const gen = { found: 0, all: 0 };
const genKind = new Map<string, { found: number; all: number }>();
for (let i = 0; i < 24; i++) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText(`Survey ${i}`, { x: 50, y: 740, size: 16, font });
  page.drawText('Languages:', { x: 50, y: 680, size: 11, font });
  page.drawText('Film:', { x: 50, y: 560, size: 11, font });
  page.drawText('Notes:', { x: 50, y: 500, size: 11, font });
  const form = doc.getForm();
  const ctx = doc.context;
  const pairs = (xs: [string, string][]) => ctx.obj(xs.map(([v, l]) => [PDFString.of(v), PDFString.of(l)]));
  const chosen = [i % 6, (i + 2) % 6, ...(i % 2 ? [(i + 4) % 6] : [])].sort((a, b) => a - b);
  const list = form.createOptionList(`s${i}.languages`);
  list.addOptions(['-']);
  list.enableMultiselect();
  list.addToPage(page, { x: 130, y: 600, width: 150, height: 90, font });
  list.acroField.dict.set(PDFName.of('Opt'), pairs(LANGS));
  const mode = i % 4;
  if (mode === 0) list.acroField.dict.set(PDFName.of('V'), ctx.obj(chosen.map((k) => PDFString.of(LANGS[k]![0]))));
  else if (mode === 1) list.acroField.dict.set(PDFName.of('V'), ctx.obj(chosen.map((k) => PDFName.of(LANGS[k]![0]))));
  else if (mode === 2) list.acroField.dict.set(PDFName.of('I'), ctx.obj(chosen.map((k) => PDFNumber.of(k))));
  else {
    list.acroField.dict.set(PDFName.of('V'), ctx.obj(chosen.map((k) => PDFString.of(LANGS[k]![0]))));
    list.acroField.dict.set(PDFName.of('I'), ctx.obj(chosen.map((k) => PDFNumber.of(k))));
  }
  const film = FILMS[i % 4]!;
  const dd = form.createDropdown(`s${i}.film`);
  dd.addOptions(['-']);
  dd.addToPage(page, { x: 130, y: 555, width: 250, height: 20, font });
  dd.acroField.dict.set(PDFName.of('Opt'), pairs(FILMS));
  dd.acroField.dict.set(PDFName.of('V'), i % 2 ? PDFName.of(film[0]) : PDFString.of(film[0]));
  const eol = ['\r', '\r\n', '\n'][i % 3]!;
  const lines = [`First note of survey ${i}`, 'Second note here', ...(i % 2 ? ['Third note'] : [])];
  const notes = form.createTextField(`s${i}.notes`);
  notes.enableMultiline();
  notes.addToPage(page, { x: 130, y: 400, width: 400, height: 100, font });
  notes.acroField.dict.set(PDFName.of('V'), i % 2 ? ctx.stream(lines.join(eol)) : PDFString.of(lines.join(eol)));
  const file = path.join(tmp, `s${i}.pdf`);
  fs.writeFileSync(file, await doc.save({ updateFieldAppearances: false }));
  const parsed = await reader.read({ path: file, name: `s${i}.pdf`, format: 'pdf', size: fs.statSync(file).size, documentId: `s${i}` }, {} as never);
  const text = squash(parsed.text);
  const checks: [string, string[]][] = [['multi-choice', chosen.map((k) => LANGS[k]![1])], ['dropdown label', [film[1]]], ['multi-line text', lines]];
  for (const [kind, want] of checks) {
    const ok = want.every((w) => text.includes(w));
    const k = genKind.get(kind) ?? { found: 0, all: 0 };
    k.all++; gen.all++;
    if (ok) (k.found++, gen.found++);
    else if (verbose) console.error(`  missed s${i} ${kind}: ${JSON.stringify(want)}`);
    genKind.set(kind, k);
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log('\nGenerated forms (24): values found in the text\n\n| value | found | values |\n|---|---|---|');
for (const [k, v] of genKind) console.log(`| ${k} | ${v.found} | ${v.all} |`);
console.log(`all generated: ${gen.found}/${gen.all}`);
await reader.close();
