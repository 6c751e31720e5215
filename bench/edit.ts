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
// --flat-only skips the AcroForm part (detection and fill through the plugin)
const FLAT_ONLY = process.argv.includes('--flat-only');
const editor = (plugin as any).create({ options: { maxBytes: 100 * 1024 * 1024 } }) as EditorPlugin;
const TYPE: Record<string, string> = { text: 'text', checkbox: 'checkbox', radio: 'radio', dropdown: 'dropdown', listbox: 'dropdown', signature: 'signature' };
const kind = (t: string) => (['text_field', 'date_field', 'number_field'].includes(t) ? 'text' : t);
const stats = new Map<string, { tp: number; fp: number; fn: number }>();
const st = (t: string) => stats.get(t) ?? (stats.set(t, { tp: 0, fp: 0, fn: 0 }), stats.get(t)!);
let pages = 0, detectS = 0, fillS = 0, fillOk = 0, fillAll = 0;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edit-bench-'));
for (const e of FLAT_ONLY ? [] : entries) {
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

// ---------------------------------------------------------------------------------------------------
// Flat forms and their images, through the API: each corpus AcroForm flattened with pdf-lib (its fields
// become drawn boxes and squares), and each page of it rendered at 200 dpi as a PNG (OCR + the lines in its
// pixels). A detected blank is right when its box overlaps a field widget of the same kind on that page
// (text, date and number are one kind); its label counts when it equals the label the AcroForm detection
// gives that field. Fill: every detected text blank (up to 40 a document) is filled and verified
// (text layer of the output PDF, OCR of each box of the output image).
//   --no-flat skips this part; --pages N reads at most N pages of each form as images (default 4; 0: none).
import { PDFDocument, PDFName } from 'pdf-lib';
import { startService } from './service.js';

const argv = process.argv;
const PAGE_IMAGES = argv.includes('--pages') ? Math.max(0, Number(argv[argv.indexOf('--pages') + 1]) || 0) : 4;
if (!argv.includes('--no-flat')) {
  interface Widget { name: string; kind: string; page: number; box: { x: number; y: number; width: number; height: number } }
  const widgetsOf = async (bytes: Uint8Array) => {
    const doc = await PDFDocument.load(bytes, { ignoreEncryption: true });
    const pageOf = new Map<string, number>();
    doc.getPages().forEach((p, i) => {
      const annots = p.node.Annots();
      for (let k = 0; k < (annots?.size() ?? 0); k++) pageOf.set(String(annots!.get(k)), i + 1);
    });
    const out: Widget[] = [];
    for (const f of doc.getForm().getFields()) {
      const t = f.constructor.name.replace(/^PDF/, '').toLowerCase();
      const kind = t === 'textfield' ? 'text' : t === 'checkbox' ? 'checkbox' : t === 'radiogroup' ? 'radio' : t === 'dropdown' || t === 'optionlist' ? 'dropdown' : t === 'signature' ? 'signature' : null;
      if (!kind) continue;
      for (const w of f.acroField.getWidgets()) {
        const ref = doc.context.getObjectRef(w.dict);
        const page = ref ? pageOf.get(String(ref)) : undefined;
        if (!page) continue;
        const r = w.getRectangle();
        const ph = doc.getPage(page - 1).getHeight();
        out.push({ name: f.getName(), kind, page, box: { x: r.x, y: ph - (r.y + r.height), width: r.width, height: r.height } });
      }
    }
    return { out, doc };
  };
  const hit = (a: Widget['box'], b: Widget['box']) => {
    const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
    const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
    return w > 0 && h > 0 && w * h > 0.3 * Math.min(a.width * a.height, b.width * b.height);
  };
  const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

  const KEY = 'svc_ed170000000000000000000000000000000000';
  const svc = await startService(KEY, { prefix: 'quire-bench-edit-' });
  const call = async (p: string, init: RequestInit = {}) => {
    const r = await fetch(`${svc.base}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, ...(init.body && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...(init.headers ?? {}) } });
    const type = r.headers.get('content-type') ?? '';
    return { status: r.status, body: (type.includes('json') ? await r.json() : Buffer.from(await r.arrayBuffer())) as any };
  };
  const upload = async (name: string, bytes: Uint8Array) => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(bytes)]), name);
    const up = await call('/v1/documents', { method: 'POST', body: form });
    if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
    for (;;) {
      const d = await call(`/v1/documents/${up.body.id}`);
      if (d.body.status === 'completed') return up.body.id as string;
      if (d.body.status === 'failed') throw new Error(`processing failed: ${JSON.stringify(d.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  type Tally = Map<string, { tp: number; fp: number; fn: number }>;
  const sets: Record<'flat' | 'image', { stats: Tally; labelled: number; labelsRight: number; matched: number; fillOk: number; fillAll: number; pages: number; seconds: number }> = {
    flat: { stats: new Map(), labelled: 0, labelsRight: 0, matched: 0, fillOk: 0, fillAll: 0, pages: 0, seconds: 0 },
    image: { stats: new Map(), labelled: 0, labelsRight: 0, matched: 0, fillOk: 0, fillAll: 0, pages: 0, seconds: 0 },
  };
  const tally = (t: Tally, k: string) => t.get(k) ?? (t.set(k, { tp: 0, fp: 0, fn: 0 }), t.get(k)!);
  const score = (set: (typeof sets)['flat'], truth: Widget[], found: any[], labels: Map<string, string>, scale: number) => {
    const used = new Set<Widget>();
    // a flat radio found with its options' rings is one detection a ring (a widget of the group each)
    found = found.flatMap((e) => (e.type === 'radio' && e.option_boxes?.length ? e.option_boxes.map((b: any) => ({ ...e, bbox: b })) : [e]));
    for (const e of found) {
      const box = { x: e.bbox.x / scale, y: e.bbox.y / scale, width: e.bbox.width / scale, height: e.bbox.height / scale };
      const k = kind(e.type);
      const w = truth.find((t) => !used.has(t) && t.page === e.page && t.kind === k && hit(t.box, box));
      if (!w) {
        tally(set.stats, k).fp++;
        continue;
      }
      used.add(w);
      tally(set.stats, k).tp++;
      set.matched++;
      if (e.label) set.labelled++;
      if (e.label && fold(e.label) === fold(labels.get(w.name) ?? '')) set.labelsRight++;
    }
    for (const t of truth) if (!used.has(t)) tally(set.stats, t.kind).fn++;
  };
  const fillAndVerify = async (set: (typeof sets)['flat'], jobId: string, found: any[]) => {
    const text = found.filter((e) => ['text_field', 'date_field', 'number_field'].includes(e.type)).slice(0, 40);
    if (!text.length) return;
    const mappings = text.map((e, i) => ({ elementId: e.id, value: e.type === 'number_field' ? String(100 + i) : e.type === 'date_field' ? '2024-05-17' : `Val${i}`, formatted: e.type !== 'date_field' }));
    const r = await call('/api/edit/run', { method: 'POST', body: JSON.stringify({ edit_job_id: jobId, mappings, verify: true }) });
    if (r.status !== 200) throw new Error(`run: ${JSON.stringify(r.body).slice(0, 300)}`);
    const warned = new Set((r.body.verification_result?.warnings ?? []).map((w: string) => w.split(':')[0]));
    set.fillAll += text.length;
    set.fillOk += text.filter((e) => !warned.has(e.label || e.id)).length;
  };
  try {
    for (const e of entries) {
      const bytes = fs.readFileSync(path.join(CORPUS, e.path));
      const { out: truthAll, doc } = await widgetsOf(bytes);
      // the labels the AcroForm detection gives with the printed layout (tooltips, else the printed text)
      const origId = await upload(`${e.id}.pdf`, bytes);
      const orig = await call('/api/edit/detect', { method: 'POST', body: JSON.stringify({ document_id: origId }) });
      const labels = new Map((orig.body.elements as any[]).map((x) => [x.id as string, x.label as string]));
      try {
        doc.getForm().flatten();
      } catch (err) {
        console.error(`${e.id}: pdf-lib could not flatten it (${(err as Error).message}); skipped`);
        continue;
      }
      const flat = await doc.save();
      const truth = truthAll;
      const id = await upload(`${e.id}-flat.pdf`, flat);
      let t0 = performance.now();
      const det = await call('/api/edit/detect', { method: 'POST', body: JSON.stringify({ document_id: id }) });
      sets.flat.seconds += (performance.now() - t0) / 1000;
      if (det.status !== 200) throw new Error(`detect: ${JSON.stringify(det.body)}`);
      sets.flat.pages += doc.getPageCount();
      score(sets.flat, truth, det.body.elements, labels, 1);
      await fillAndVerify(sets.flat, det.body.job_id, det.body.elements);
      for (let n = 1; n <= Math.min(PAGE_IMAGES, doc.getPageCount()); n++) {
        const img = await call(`/api/documents/${id}/pages/${n}/image?dpi=200`);
        if (img.status !== 200) throw new Error(`page image: ${img.status}`);
        const png = img.body as Buffer;
        const scale = png.readUInt32BE(16) / doc.getPage(n - 1).getWidth();
        const imgId = await upload(`${e.id}-p${n}.png`, png);
        t0 = performance.now();
        const d = await call('/api/edit/detect', { method: 'POST', body: JSON.stringify({ document_id: imgId }) });
        sets.image.seconds += (performance.now() - t0) / 1000;
        if (d.status !== 200) throw new Error(`detect image: ${JSON.stringify(d.body)}`);
        sets.image.pages++;
        score(sets.image, truth.filter((w) => w.page === n).map((w) => ({ ...w, page: 1 })), d.body.elements, labels, scale);
        await fillAndVerify(sets.image, d.body.job_id, d.body.elements);
      }
    }
  } finally {
    await svc.stop();
  }
  for (const [name, set] of Object.entries(sets)) {
    console.log(`\n${name === 'flat' ? 'Flattened PDFs' : `PNG renderings at 200 dpi (first ${PAGE_IMAGES} pages of each)`}: ${set.pages} pages\n`);
    console.log('| field type | precision | recall | fields |\n|---|---|---|---|');
    for (const [t, s] of set.stats) console.log(`| ${t} | ${(s.tp / Math.max(1, s.tp + s.fp)).toFixed(3)} | ${(s.tp / Math.max(1, s.tp + s.fn)).toFixed(3)} | ${s.tp + s.fn} |`);
    console.log(`\nmatched blanks with a label: ${set.labelled}/${set.matched}; label equal to the AcroForm label: ${set.labelsRight}/${set.matched}`);
    console.log(`fill verified in place: ${set.fillOk}/${set.fillAll} = ${(set.fillOk / Math.max(1, set.fillAll)).toFixed(3)}`);
    console.log(`seconds per page of detection (over HTTP): ${(set.seconds / Math.max(1, set.pages)).toFixed(3)}`);
  }
}
