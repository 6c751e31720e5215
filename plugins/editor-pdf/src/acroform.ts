/**
 * AcroForm fields through pdf-lib: detection (type, label, page, box, required, value, options, maximum
 * length, date pattern), filling with regenerated appearance streams drawn in an embedded Unicode font (so
 * Greek or Cyrillic values show in every viewer), optional flattening, and reading values back.
 */
import { PDFButton, PDFCheckBox, PDFDict, PDFDocument, PDFDropdown, PDFHexString, PDFName, PDFOptionList, PDFRadioGroup, PDFSignature, PDFStream, PDFString, PDFTextField, StandardFonts, decodePDFRawStream } from 'pdf-lib';
import type { PDFField, PDFFont, PDFPage, PDFRawStream } from 'pdf-lib';
import { errors } from '@quire/core/isolate';
import type { BBox, EditElement, EditFillValue, EditLayout, Word } from '@quire/core';
import { humanName, labelWords, nearestLabel, refineTextType } from './labels.js';
import { formatValue } from './format.js';
import { choiceFieldValues, textFieldValue } from '@quire/layout/form-values';
import { DEFAULT_FONT, unicodeFont } from './font.js';

export { DEFAULT_FONT, unicodeFont };

export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (e) {
    throw errors.unsupported(`The PDF cannot be read: ${(e as Error).message}`);
  }
}

function text(v: unknown): string | null {
  if (v instanceof PDFString || v instanceof PDFHexString) return v.decodeText();
  return null;
}

/** The JavaScript of a field's format action (/AA /F /JS), which names date and number formats. */
function formatScript(field: PDFField): string | null {
  try {
    const aa = field.acroField.dict.lookup(PDFName.of('AA'));
    if (!(aa instanceof PDFDict)) return null;
    const f = aa.lookup(PDFName.of('F'));
    if (!(f instanceof PDFDict)) return null;
    const js = f.lookup(PDFName.of('JS'));
    if (js instanceof PDFStream) return Buffer.from(decodePDFRawStream(js as PDFRawStream).decode()).toString('latin1');
    return text(js);
  } catch {
    return null;
  }
}

interface Placed {
  page: number;
  bbox: BBox;
}

/** Page (1-based) and top-left box of each widget of a field. */
function placements(doc: PDFDocument, field: PDFField, pageOf: Map<PDFDict, number>, pages: PDFPage[]): Placed[] {
  const out: Placed[] = [];
  for (const w of field.acroField.getWidgets()) {
    let index = pageOf.get(w.dict);
    if (index === undefined) {
      const p = w.P();
      const d = p ? doc.context.lookup(p) : undefined;
      index = d ? pages.findIndex((pg) => pg.node === d) : -1;
    }
    if (index === undefined || index < 0) continue;
    const page = pages[index]!;
    const r = w.getRectangle();
    const mb = page.getMediaBox();
    const h = page.getHeight();
    const x = Math.min(r.x, r.x + r.width) - mb.x;
    const yBottom = Math.min(r.y, r.y + r.height) - mb.y;
    const width = Math.abs(r.width), height = Math.abs(r.height);
    out.push({ page: index + 1, bbox: { x: round(x), y: round(h - yBottom - height), width: round(width), height: round(height) } });
  }
  return out;
}

const round = (v: number) => Math.round(v * 100) / 100;

function union(bs: BBox[]): BBox {
  const x0 = Math.min(...bs.map((b) => b.x)), y0 = Math.min(...bs.map((b) => b.y));
  const x1 = Math.max(...bs.map((b) => b.x + b.width)), y1 = Math.max(...bs.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: round(x1 - x0), height: round(y1 - y0) };
}

function widgetPages(doc: PDFDocument, pages: PDFPage[]): Map<PDFDict, number> {
  const m = new Map<PDFDict, number>();
  pages.forEach((p, i) => {
    const annots = p.node.Annots();
    if (!annots) return;
    for (let k = 0; k < annots.size(); k++) {
      const d = doc.context.lookup(annots.get(k));
      if (d instanceof PDFDict) m.set(d, i);
    }
  });
  return m;
}

const letters = (t: string) => t.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The printed words near a field (above or below it, across its width) that spell the field's own name
 * ("prénom" under the field A.PRENOM, "EYES" under Eyes): on forms whose captions sit under the boxes the
 * nearest line above is another field's caption, and the name settles which caption is this field's.
 */
function namedNearby(box: BBox, words: Word[], name: string): string {
  const want = letters(name);
  if (want.length < 3) return '';
  const reach = Math.max(20, box.height * 1.5);
  const near = words
    .filter((w) => w.bbox.x < box.x + box.width + 10 && w.bbox.x + w.bbox.width > box.x - 10 && w.bbox.y < box.y + box.height + reach && w.bbox.y + w.bbox.height > box.y - reach)
    .sort((a, b) => a.bbox.y - b.bbox.y || a.bbox.x - b.bbox.x);
  for (let i = 0; i < near.length; i++) {
    for (let n = 1; n <= 3 && i + n <= near.length; n++) {
      const run = near.slice(i, i + n);
      if (run.some((w) => Math.abs(w.bbox.y - run[0]!.bbox.y) > 3)) break;
      if (letters(run.map((w) => w.text).join('')) === want) return run.map((w) => w.text).join(' ');
    }
  }
  return '';
}

export interface DetectOptions {
  layout?: EditLayout;
  include_checkboxes?: boolean;
  include_signatures?: boolean;
}

/** The fields of the document's AcroForm as edit elements (push buttons are not fillable and are left out). */
export function detectFields(doc: PDFDocument, opts: DetectOptions): EditElement[] {
  let fields: PDFField[];
  try {
    fields = doc.getForm().getFields();
  } catch {
    return [];
  }
  const pages = doc.getPages();
  const pageOf = widgetPages(doc, pages);
  const placed = fields.map((f) => ({ f, at: placements(doc, f, pageOf, pages) }));
  const boxesByPage = new Map<number, BBox[]>();
  for (const p of placed) for (const a of p.at) boxesByPage.set(a.page, [...(boxesByPage.get(a.page) ?? []), a.bbox]);
  const wordsByPage = new Map((opts.layout?.pages ?? []).map((p) => [p.number, labelWords(p.words, boxesByPage.get(p.number) ?? [])]));
  const out: EditElement[] = [];
  for (const { f, at } of placed) {
    if (f instanceof PDFButton) continue;
    if (f instanceof PDFCheckBox && opts.include_checkboxes === false) continue;
    if (f instanceof PDFSignature && opts.include_signatures === false) continue;
    const name = f.getName();
    const first = at[0];
    const page = first?.page ?? 1;
    const onPage = at.filter((a) => a.page === page).map((a) => a.bbox);
    const bbox = onPage.length ? union(onPage) : { x: 0, y: 0, width: 0, height: 0 };
    // a tooltip names the field when it has a word in it ("[2]" does not)
    const tip = text(f.acroField.dict.lookup(PDFName.of('TU')))?.trim() || null;
    const tooltip = tip && /\p{L}{2}/u.test(tip) ? tip : null;
    const isChoice = f instanceof PDFCheckBox || f instanceof PDFRadioGroup;
    const printed = () => (first ? nearestLabel(f instanceof PDFRadioGroup ? first.bbox : bbox, wordsByPage.get(page) ?? [], { prefer: f instanceof PDFCheckBox ? 'right' : 'left', others: boxesByPage.get(page) ?? [] }) : '');
    const label = tooltip || (first ? namedNearby(bbox, wordsByPage.get(page) ?? [], humanName(name)) : '') || printed() || humanName(name);
    const base = { id: name, field_name: name, label, page, bbox, required: f.isRequired(), source: 'acroform' as const };
    if (f instanceof PDFTextField) {
      // a text string or a text stream, lines kept (pdf-lib's getText reads no stream)
      const value = textFieldValue(f) ?? '';
      const refined = refineTextType(label, name, formatScript(f));
      const maxLength = f.getMaxLength();
      out.push({ ...base, type: refined.type, ...(refined.format ? { format: refined.format } : {}), current_value: value, ...(maxLength !== undefined ? { max_length: maxLength } : {}), ...(f.isCombed() ? { comb: true } : {}), ...(f.isMultiline() ? { multiline: true } : {}) });
    } else if (f instanceof PDFCheckBox) {
      const checked = f.isChecked();
      out.push({ ...base, type: 'checkbox', checked, current_value: checked ? 'true' : 'false' });
    } else if (f instanceof PDFRadioGroup) {
      // each button's caption (printed right of it, else left), in the order of the options
      const words = wordsByPage.get(page) ?? [];
      const captions = f.getOptions().map((_, k) => {
        const w = at[k];
        return w && w.page === page ? nearestLabel(w.bbox, words, { prefer: 'right', others: boxesByPage.get(page) ?? [] }) : '';
      });
      const withCaptions = at.length === f.getOptions().length && captions.some(Boolean);
      out.push({ ...base, type: 'radio', options: f.getOptions(), ...(withCaptions ? { option_labels: captions } : {}), current_value: f.getSelected() ?? '' });
    } else if (f instanceof PDFDropdown || f instanceof PDFOptionList) {
      const multi = f instanceof PDFOptionList || f.isMultiselect();
      out.push({ ...base, type: 'dropdown', options: f.getOptions(), current_value: choiceFieldValues(f).join(', '), ...(multi ? { multi: true } : {}) });
    } else if (f instanceof PDFSignature) {
      out.push({ ...base, type: 'signature', current_value: '' });
    }
    void isChoice;
  }
  return groupElements(doc, fields, out, wordsByPage, boxesByPage);
}

/** A field's name without its last index: "c1_3[2]" → "c1_3", "status_2" → "status"; null when it has none. */
function stem(name: string): string | null {
  const m = /^(.*\S)\[\d+\]$/.exec(name) ?? /^(.*[^\d_\-. ])[_\- ]?\d{1,2}$/.exec(name);
  return m ? m[1]! : null;
}

/**
 * Checkboxes that are one question's options: single-widget checkboxes on one page named alike ("c1_3[0]" …
 * "c1_3[4]", "status_1" … "status_5") or the only kids of one parent field ("filing.single", "filing.joint"),
 * two to twenty of them. Each group is named by its stem or parent (never a name another field has).
 */
export function checkboxGroups(fields: PDFField[]): { name: string; members: PDFCheckBox[] }[] {
  const names = new Set(fields.map((f) => f.getName()));
  const boxes = fields.filter((f): f is PDFCheckBox => f instanceof PDFCheckBox && f.acroField.getWidgets().length === 1);
  const groups: { name: string; members: PDFCheckBox[] }[] = [];
  const taken = new Set<PDFCheckBox>();
  const add = (key: (f: PDFCheckBox) => string | null, whole: (name: string, members: PDFCheckBox[]) => boolean) => {
    const by = new Map<string, PDFCheckBox[]>();
    for (const f of boxes) {
      if (taken.has(f)) continue;
      const k = key(f);
      if (k && !names.has(k)) by.set(k, [...(by.get(k) ?? []), f]);
    }
    for (const [name, members] of by) {
      if (members.length < 2 || members.length > 20 || !whole(name, members)) continue;
      members.forEach((m) => taken.add(m));
      groups.push({ name, members });
    }
  };
  add((f) => stem(f.getName()), () => true);
  // a parent whose every kid is a checkbox
  const parentOf = (n: string) => (n.includes('.') ? n.slice(0, n.lastIndexOf('.')) : null);
  add((f) => parentOf(f.getName()), (name) => fields.every((f) => parentOf(f.getName()) !== name || (f instanceof PDFCheckBox && !taken.has(f)) || false));
  return groups;
}

const foldText = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ').trim();

/** A box's option in its group: the last part of its name (distinct among siblings; the caption is its option label). */
const optionOf = (name: string) => name.split('.').pop()!;

/** The options of a checkbox group (the boxes' names' last parts) and their captions. */
function groupOptions(members: EditElement[]): { options: string[]; labels: string[] } {
  return { options: members.map((m) => optionOf(m.field_name ?? m.id)), labels: members.map((m) => m.label) };
}

/**
 * A caption that lets several options be ticked ("check all that apply", "select one or more", "plusieurs
 * réponses possibles", "Mehrfachnennung möglich", "marque todas las que correspondan") or only one.
 */
const MANY = /\b(?:all that apply|(?:check|tick|mark|select|choose|circle)\s+(?:all|any|as many|each)\b|one or more|more than one (?:answer|option|box)|multiple (?:answers|choices|selections)|several answers)|plusieurs r[ée]ponses|toutes? celles? qui|mehrfach(?:nennung|auswahl)|mehrere antworten|alle zutreffenden|todas las que|varias respuestas|meerdere antwoorden|alles wat van toepassing/iu;
const ONE = /\b(?:(?:check|tick|mark|select|choose|circle)\s+(?:only\s+)?one\b|only one\b|one only\b|one box\b)|une seule|nur eine|sólo una|solo una|slechts één/iu;

/**
 * Whether a group of checkboxes takes several ticks: its caption (tooltip, label, or the line of words just
 * above the group or left of its first box) says so, or more than one of its boxes is ticked already; a
 * caption asking for one keeps it a single choice, as does silence (filing status, contact preference).
 */
function manyAllowed(members: EditElement[], label: string, tip: string | undefined, words: Word[]): boolean {
  const box = union(members.map((m) => m.bbox));
  const near = words.filter((w) => {
    const bottom = w.bbox.y + w.bbox.height;
    const aboveIt = bottom <= box.y + 2 && box.y - bottom <= 40 && w.bbox.x < box.x + box.width + 250 && w.bbox.x + w.bbox.width > box.x - 250;
    const leftOf = w.bbox.y < members[0]!.bbox.y + members[0]!.bbox.height && bottom > members[0]!.bbox.y && w.bbox.x + w.bbox.width <= box.x + 2 && box.x - w.bbox.x <= 400;
    return aboveIt || leftOf;
  });
  const caption = [tip ?? '', label, near.map((w) => w.text).join(' ')].join(' \n ').replace(/\s+/g, ' ');
  if (MANY.test(caption)) return true;
  if (ONE.test(caption)) return false;
  return members.filter((m) => m.checked).length > 1;
}

/**
 * The checkboxes of each group as one element at the first box's place, with their captions as options: a
 * single choice (type radio), or a multi choice (type checkbox, `multi`) when several may be ticked.
 */
function groupElements(doc: PDFDocument, fields: PDFField[], out: EditElement[], wordsByPage: Map<number, Word[]>, boxesByPage: Map<number, BBox[]>): EditElement[] {
  const groups = checkboxGroups(fields);
  if (!groups.length) return out;
  const byName = new Map(out.map((e) => [e.field_name ?? e.id, e]));
  const grouped = new Map<string, EditElement>();
  for (const g of groups) {
    const members = g.members.map((m) => byName.get(m.getName())).filter((e): e is EditElement => !!e);
    if (members.length !== g.members.length || new Set(members.map((m) => m.page)).size !== 1) continue;
    const { options, labels } = groupOptions(members);
    const page = members[0]!.page;
    const bbox = union(members.map((m) => m.bbox));
    const parent = g.members[0]!.acroField.getParent();
    const tip = parent ? text(parent.dict.lookup(PDFName.of('TU')))?.trim() : undefined;
    const printed = nearestLabel(members[0]!.bbox, (wordsByPage.get(page) ?? []).filter((w) => !labels.some((l) => l && l.split(/\s+/).includes(w.text))), { prefer: 'left', others: boxesByPage.get(page) ?? [] });
    const label = (tip && /\p{L}{2}/u.test(tip) ? tip : '') || printed || humanName(g.name) || g.name;
    const chosen = members.findIndex((m) => m.checked);
    const common = { id: g.name, field_name: g.name, label, page, bbox, required: members.some((m) => m.required), options, option_labels: labels, source: 'acroform' as const };
    const el: EditElement = manyAllowed(members, label, tip, wordsByPage.get(page) ?? [])
      ? { ...common, type: 'checkbox', multi: true, checked: chosen >= 0, current_value: options.filter((_, k) => members[k]!.checked).join(', ') }
      : { ...common, type: 'radio', current_value: chosen >= 0 ? options[chosen]! : '' };
    members.forEach((m, k) => grouped.set(m.field_name ?? m.id, k === 0 ? el : (null as never)));
  }
  const res: EditElement[] = [];
  for (const e of out) {
    const name = e.field_name ?? e.id;
    if (!grouped.has(name)) res.push(e);
    else if (grouped.get(name)) res.push(grouped.get(name)!);
  }
  void doc;
  return res;
}

/** The option of a group a value names (the option, else its caption, else a unique prefix), as an index. */
function groupIndex(options: string[], labels: string[], value: string): number {
  const v = foldText(value);
  let k = options.findIndex((o) => foldText(o) === v);
  if (k < 0) k = labels.findIndex((l) => foldText(l) === v);
  if (k < 0) {
    const pre = options.map((o, i) => [foldText(o), foldText(labels[i] ?? '')]).map(([o, l], i) => ([o, l].some((n) => n!.length > 1 && (n!.startsWith(v) || v.startsWith(n!))) ? i : -1)).filter((i) => i >= 0);
    if (pre.length === 1) k = pre[0]!;
  }
  return k;
}

/**
 * The options of a multi-choice group a value names: a list (an array, or a text cut at commas, semicolons and
 * "and" where the whole does not name one option); `unknown` holds the parts that name none. An empty value
 * (or false) names none: every box cleared.
 */
function chosenOptions(options: string[], labels: string[], value: unknown): { ks: number[]; unknown: string[] } {
  if (value === false || value === null || value === undefined) return { ks: [], unknown: [] };
  const parts = Array.isArray(value) ? value.map(String) : [String(value)];
  const ks: number[] = [];
  const unknown: string[] = [];
  for (const p of parts) {
    if (!p.trim()) continue;
    // each part of a list an option ("SQL Server and Oracle"), else the whole one ("Married, filing jointly")
    const pieces = p.split(/\s*[,;&]\s*|\s+(?:and|et|und|y|en)\s+/i).filter((x) => x.trim());
    let each = pieces.map((x) => groupIndex(options, labels, x));
    if (each.some((k) => k < 0)) {
      // (the whole named exactly: a prefix of it would be its first part)
      const whole = options.findIndex((o, i) => foldText(o) === foldText(p) || foldText(labels[i] ?? '') === foldText(p));
      if (whole >= 0) each = [whole];
      else pieces.forEach((x, i) => each[i]! < 0 && unknown.push(x));
    }
    for (const k of each) if (k >= 0 && !ks.includes(k)) ks.push(k);
  }
  return { ks: ks.sort((a, b) => a - b), unknown };
}

/** The values of the form's fields by name (for verification): text, checked state, chosen options. */
export function readFieldValues(doc: PDFDocument): Record<string, string | boolean | string[] | null> {
  const out: Record<string, string | boolean | string[] | null> = {};
  let fields: PDFField[] = [];
  try {
    fields = doc.getForm().getFields();
  } catch {
    return out;
  }
  for (const f of fields) {
    const name = f.getName();
    try {
      if (f instanceof PDFTextField) out[name] = f.getText() ?? '';
      else if (f instanceof PDFCheckBox) out[name] = f.isChecked();
      else if (f instanceof PDFRadioGroup) out[name] = f.getSelected() ?? null;
      else if (f instanceof PDFDropdown || f instanceof PDFOptionList) out[name] = f.getSelected();
    } catch {
      out[name] = null;
    }
  }
  // a group of checkboxes: the option of the box ticked (the last part of its name)
  for (const g of checkboxGroups(fields)) {
    const on = g.members.filter((m) => m.isChecked());
    out[g.name] = on.length === 1 ? optionOf(on[0]!.getName()) : on.length ? on.map((m) => optionOf(m.getName())) : null;
  }
  return out;
}

/** The font values are drawn in: the Unicode font embedded (subset), else Helvetica (Latin-1 only). */
export async function embedFont(doc: PDFDocument, fontPath?: string): Promise<{ font: PDFFont; unicode: boolean }> {
  const bytes = unicodeFont(fontPath);
  if (bytes) {
    // loaded when a value is drawn (a tenth of a second): detection and reading values back do without it
    doc.registerFontkit((await import('@pdf-lib/fontkit')).default);
    return { font: await doc.embedFont(bytes, { subset: true }), unicode: true };
  }
  return { font: await doc.embedFont(StandardFonts.Helvetica), unicode: false };
}

/** "#1a2b3c" / "1a2b3c" / "rgb(…)" → 0..1 components, or null. */
export function parseColor(c: string | undefined): [number, number, number] | null {
  if (!c) return null;
  const hex = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(c.trim());
  if (hex) {
    const h = hex[1]!.length === 3 ? [...hex[1]!].map((x) => x + x).join('') : hex[1]!;
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255) as [number, number, number];
  }
  const rgb = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/i.exec(c.trim());
  if (rgb) return [1, 2, 3].map((i) => Math.min(255, Number(rgb[i])) / 255) as [number, number, number];
  const named: Record<string, [number, number, number]> = { black: [0, 0, 0], blue: [0, 0, 1], red: [1, 0, 0], green: [0, 0.5, 0], darkblue: [0, 0, 0.55] };
  return named[c.trim().toLowerCase()] ?? null;
}

/** Sets the text colour of a field's default appearance (the colour its regenerated appearance is drawn in). */
function setTextColor(f: PDFTextField | PDFDropdown, rgb: [number, number, number]): void {
  const da = f.acroField.getDefaultAppearance() ?? '/Helv 0 Tf 0 g';
  const without = da.replace(/(?:[\d.]+\s+){3}[\d.]+\s+k|(?:[\d.]+\s+){2}[\d.]+\s+rg|[\d.]+\s+g/g, '').trim();
  f.acroField.setDefaultAppearance(`${without} ${rgb.map((v) => v.toFixed(3)).join(' ')} rg`);
}

export interface FillResult {
  bytes: Uint8Array;
  warnings: string[];
  applied: { id: string; value: string }[];
}

/** Sets the fields, regenerates their appearances in the embedded font, optionally flattens the form. */
export async function fillFields(doc: PDFDocument, values: EditFillValue[], opts: { flatten?: boolean; color?: string; fontPath?: string; raw?: Set<string> }): Promise<{ warnings: string[]; applied: { id: string; value: string }[] }> {
  const form = doc.getForm();
  const { font, unicode } = await embedFont(doc, opts.fontPath);
  const color = parseColor(opts.color);
  const warnings: string[] = [];
  const applied: { id: string; value: string }[] = [];
  const groups = new Map(checkboxGroups(form.getFields()).map((g) => [g.name, g.members]));
  for (const { element, value } of values) {
    const name = element.field_name ?? element.id;
    const members = groups.get(name);
    if (members && !form.getFieldMaybe(name)) {
      // a group of checkboxes: the box of the option named is ticked (each named one, in a multi choice), the others cleared
      const options = members.map((m) => optionOf(m.getName()));
      const named = element.multi ? chosenOptions(options, element.option_labels ?? [], value) : { ks: typeof value === 'string' ? [groupIndex(options, element.option_labels ?? [], value)].filter((k) => k >= 0) : [], unknown: typeof value === 'string' ? [] : [String(value)] };
      if ((!element.multi && !named.ks.length) || named.unknown.length) {
        warnings.push(`${element.label || element.id}: "${named.unknown.length ? named.unknown.join(', ') : String(value)}" is not one of ${(element.option_labels?.some(Boolean) ? element.option_labels : options)!.join(', ')}`);
        continue;
      }
      members.forEach((m, i) => (named.ks.includes(i) ? m.check() : m.uncheck()));
      applied.push({ id: element.id, value: named.ks.map((k) => options[k]!).join(', ') });
      continue;
    }
    const field = form.getFieldMaybe(name);
    if (!field) {
      warnings.push(`${element.label || element.id}: no such field in the form`);
      continue;
    }
    const fmt = formatValue(element, value, opts.raw?.has(element.id));
    if (fmt.warning) warnings.push(fmt.warning);
    try {
      if (field instanceof PDFTextField) {
        const t = String(fmt.value);
        if (!unicode && /[^\u0000-\u00ff]/.test(t)) warnings.push(`${element.label || element.id}: no Unicode font installed (${DEFAULT_FONT}); characters outside Latin-1 may not show`);
        if (color) setTextColor(field, color);
        field.setText(t);
        field.updateAppearances(font);
        applied.push({ id: element.id, value: t });
      } else if (field instanceof PDFCheckBox) {
        if (fmt.value === true) field.check();
        else field.uncheck();
        applied.push({ id: element.id, value: String(fmt.value) });
      } else if (field instanceof PDFRadioGroup) {
        const opt = String(fmt.value);
        if (!field.getOptions().includes(opt)) {
          warnings.push(`${element.label || element.id}: "${opt}" is not one of ${field.getOptions().join(', ')}`);
          continue;
        }
        field.select(opt);
        applied.push({ id: element.id, value: opt });
      } else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
        const chosen = Array.isArray(fmt.value) ? fmt.value : [String(fmt.value)];
        const options = field.getOptions();
        const missing = chosen.filter((c) => !options.includes(c));
        if (missing.length && !(field instanceof PDFDropdown && field.isEditable())) {
          warnings.push(`${element.label || element.id}: "${missing.join(', ')}" is not one of ${options.join(', ')}`);
          continue;
        }
        if (color && field instanceof PDFDropdown) setTextColor(field, color);
        field.select(chosen.length === 1 ? chosen[0]! : chosen);
        field.updateAppearances(font);
        applied.push({ id: element.id, value: chosen.join(', ') });
      } else {
        warnings.push(`${element.label || element.id}: a ${element.type} is not filled with a value`);
      }
    } catch (e) {
      warnings.push(`${element.label || element.id}: ${(e as Error).message}`);
    }
  }
  if (opts.flatten) form.flatten({ updateFieldAppearances: false });
  return { warnings, applied };
}
