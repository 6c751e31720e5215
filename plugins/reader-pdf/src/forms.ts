/**
 * AcroForm fields through PDFium: the form fill environment of a document, the fields whose widgets are on
 * a page (name, type, value, options, flags, box) and their values as text items where a viewer shows them,
 * so the page's layout reads "Name: value" next to the printed labels.
 */
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import type { TextItem } from '@quire/layout';
import { formValueOf } from '@quire/layout/form-values';
import type { FormValue } from '@quire/layout/form-values';
import type { FormField } from './types.js';
import { utf16 } from './pdfium.js';

type Pdfium = WrappedPdfiumModule;

// fpdf_formfill.h
const FORMTYPE_ACRO_FORM = 1;
const FORMTYPE_XFA_FULL = 2;
const FORMTYPE_XFA_FOREGROUND = 3;
const FIELD_TYPES: Record<number, FormField['type']> = { 1: 'button', 2: 'checkbox', 3: 'radio', 4: 'dropdown', 5: 'listbox', 6: 'text', 7: 'signature' };
// fpdf_annot.h
const ANNOT_WIDGET = 20;
const ANNOT_FLAG_INVISIBLE = 1 << 0;
const ANNOT_FLAG_HIDDEN = 1 << 1;
const ANNOT_FLAG_NOVIEW = 1 << 5;
const FORMFLAG_READONLY = 1 << 0;
const FORMFLAG_REQUIRED = 1 << 1;
const FORMFLAG_TEXT_PASSWORD = 1 << 13;
/** annotations looked at on one page at most (a hostile file could list millions) */
const MAX_ANNOTS = 20_000;
/** options read from one choice field at most */
const MAX_OPTIONS = 2_000;

/** The FPDF_FORMFILLINFO of each form fill environment: it must outlive the environment, freed by exitForm. */
const infos = new Map<number, number>();

/** The document's form fill environment (its handle), 0 when the document has no form or it could not be made. */
export function initForm(m: Pdfium, doc: number): number {
  if (!doc || m.FPDF_GetFormType(doc) === 0) return 0;
  let info = 0;
  try {
    info = m.PDFiumExt_OpenFormFillInfo();
    if (!info) return 0;
    const form = m.PDFiumExt_InitFormFillEnvironment(doc, info);
    if (!form) {
      m.PDFiumExt_CloseFormFillInfo(info);
      return 0;
    }
    infos.set(form, info);
    return form;
  } catch {
    if (info) m.PDFiumExt_CloseFormFillInfo(info);
    return 0;
  }
}

/** Frees what initForm made (before the document is closed). */
export function exitForm(m: Pdfium, form: number): void {
  if (!form) return;
  m.PDFiumExt_ExitFormFillEnvironment(form);
  const info = infos.get(form);
  infos.delete(form);
  if (info) m.PDFiumExt_CloseFormFillInfo(info);
}

/** The kind of form of the document: none, AcroForm, or XFA (full or foreground, whose content PDFium here does not render). */
export function formInfo(m: Pdfium, doc: number): { kind: 'none' | 'acroform' | 'xfa' } {
  const t = doc ? m.FPDF_GetFormType(doc) : 0;
  if (t === FORMTYPE_ACRO_FORM) return { kind: 'acroform' };
  if (t === FORMTYPE_XFA_FULL || t === FORMTYPE_XFA_FOREGROUND) return { kind: 'xfa' };
  return { kind: 'none' };
}

type Box = FormField['bbox'];

function union(a: Box, b: Box): Box {
  const x0 = Math.min(a.x, b.x), y0 = Math.min(a.y, b.y);
  return { x: x0, y: y0, width: Math.max(a.x + a.width, b.x + b.width) - x0, height: Math.max(a.y + a.height, b.y + b.height) - y0 };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

/** One widget annotation of a field as read from the page. */
interface Widget {
  key: string;
  name: string;
  type: FormField['type'];
  flags: number;
  hidden: boolean;
  box: Box;
  fontSize: number;
}

/**
 * The fields whose widgets are on the page (`page`: a loaded FPDF_PAGE, `form`: the document's form fill
 * environment from initForm; the page is made known to it with FORM_OnAfterLoadPage). A field drawn by
 * several widgets is one field (fully qualified names are unique in a document). Per type:
 * - text: its text (null when empty, and for a password field);
 * - checkbox: whether it is ticked (any of its widgets); bbox the ticked widget's, else the union;
 * - radio: one field per group, `options` the export values of its buttons (in the field's order), value the
 *   chosen button's export value or null; bbox the chosen button's (where a viewer shows the mark, where
 *   fieldItems puts ◉) or, when none is chosen, the union of the group's buttons on the page;
 * - dropdown/listbox: `options` every option label, value the chosen labels (the typed text of an editable
 *   dropdown whose value is none of its options), null when none;
 * - button and signature: value null.
 * Boxes are in page viewport coordinates (points, top-left origin) through `toView` (PDF user space to view).
 */
export function readFormFields(m: Pdfium, doc: number, page: number, form: number, pageNumber: number, toView: (x: number, y: number) => [number, number]): FormField[] {
  if (!doc || !page || !form) return [];
  const count = Math.min(MAX_ANNOTS, Math.max(0, m.FPDFPage_GetAnnotCount(page)));
  if (!count) return [];
  // the page's view in the form environment: without it FPDFAnnot_IsChecked says false for every box. Made
  // once per page (idempotent); FPDF_ClosePage removes it, so the caller need not call FORM_OnBeforeClosePage.
  m.FORM_OnAfterLoadPage(page, form);
  const malloc = m.pdfium.wasmExports.malloc;
  const free = m.pdfium.wasmExports.free;
  const rect = malloc(16);
  const fsize = malloc(4);
  const byKey = new Map<string, FormField & { hiddenAll: boolean; chosenBox?: Box; seenOptions?: Map<string, number> }>();
  try {
    for (let i = 0; i < count; i++) {
      const annot = m.FPDFPage_GetAnnot(page, i);
      if (!annot) continue;
      try {
        if (m.FPDFAnnot_GetSubtype(annot) !== ANNOT_WIDGET) continue;
        const w = widget(m, form, annot, rect, fsize, toView);
        if (!w) continue;
        let f = byKey.get(w.key);
        if (!f) {
          f = { name: w.name, type: w.type, value: w.type === 'checkbox' ? false : null, page: pageNumber, bbox: w.box, hiddenAll: w.hidden };
          if (w.flags & FORMFLAG_READONLY) f.readOnly = true;
          if (w.flags & FORMFLAG_REQUIRED) f.required = true;
          if (w.fontSize > 0) f.fontSize = r2(w.fontSize);
          byKey.set(w.key, f);
          firstWidget(m, form, annot, w, f);
        } else {
          f.bbox = union(f.bbox, w.box);
          f.hiddenAll &&= w.hidden;
        }
        if (w.type === 'checkbox' || w.type === 'radio') {
          const checked = m.FPDFAnnot_IsChecked(form, annot);
          if (w.type === 'radio') {
            const exp = utf16(m, (b, l) => m.FPDFAnnot_GetFormFieldExportValue(form, annot, b, l), Infinity);
            f.seenOptions ??= new Map();
            if (exp && !f.seenOptions.has(exp)) f.seenOptions.set(exp, m.FPDFAnnot_GetFormControlIndex(form, annot));
            if (checked && f.value === null) {
              f.value = exp || 'On';
              f.chosenBox = w.box;
            }
          } else if (checked && f.value !== true) {
            f.value = true;
            f.chosenBox = w.box;
          }
        }
      } finally {
        m.FPDFPage_CloseAnnot(annot);
      }
    }
  } finally {
    free(rect);
    free(fsize);
  }
  const out: FormField[] = [];
  for (const f of byKey.values()) {
    const { hiddenAll, chosenBox, seenOptions, ...field } = f;
    // a radio group's export values in the field's order of its buttons
    if (seenOptions) field.options = [...seenOptions].sort((a, b) => a[1] - b[1]).map(([v]) => v);
    if (chosenBox) field.bbox = chosenBox;
    field.bbox = { x: r2(field.bbox.x), y: r2(field.bbox.y), width: r2(field.bbox.width), height: r2(field.bbox.height) };
    if (hiddenAll) field.hidden = true;
    out.push(field);
  }
  return out;
}

/** Name, type, flags and view box of a widget; null for one that belongs to no field. */
function widget(m: Pdfium, form: number, annot: number, rect: number, fsize: number, toView: (x: number, y: number) => [number, number]): Widget | null {
  const code = m.FPDFAnnot_GetFormFieldType(form, annot);
  if (code < 0) return null;
  const name = utf16(m, (b, l) => m.FPDFAnnot_GetFormFieldName(form, annot, b, l), Infinity);
  const objnum = name ? 0 : m.EPDFAnnot_GetFormFieldObjectNumber(form, annot);
  const key = name || (objnum > 0 ? `#${objnum}` : '');
  if (!key) return null;
  if (!m.FPDFAnnot_GetRect(annot, rect)) return null;
  const l = m.pdfium.getValue(rect, 'float'), t = m.pdfium.getValue(rect + 4, 'float');
  const r = m.pdfium.getValue(rect + 8, 'float'), b = m.pdfium.getValue(rect + 12, 'float');
  const corners = [toView(l, t), toView(r, t), toView(l, b), toView(r, b)];
  const xs = corners.map((c) => c[0]), ys = corners.map((c) => c[1]);
  const x0 = Math.min(...xs), y0 = Math.min(...ys);
  if (![x0, y0, ...xs, ...ys].every(Number.isFinite)) return null;
  const box = { x: x0, y: y0, width: Math.max(...xs) - x0, height: Math.max(...ys) - y0 };
  const aflags = m.FPDFAnnot_GetFlags(annot);
  m.pdfium.setValue(fsize, 0, 'float');
  const fontSize = m.FPDFAnnot_GetFontSize(form, annot, fsize) ? m.pdfium.getValue(fsize, 'float') : 0;
  return {
    key,
    name: name || key,
    type: FIELD_TYPES[code] ?? 'unknown',
    flags: m.FPDFAnnot_GetFormFieldFlags(form, annot),
    hidden: (aflags & (ANNOT_FLAG_HIDDEN | ANNOT_FLAG_NOVIEW)) !== 0 || (code === 0 && (aflags & ANNOT_FLAG_INVISIBLE) !== 0),
    box,
    fontSize: Number.isFinite(fontSize) ? fontSize : 0,
  };
}

/** What is read once per field, from its first widget: the value of a text field, the options and choice of a choice field. */
function firstWidget(m: Pdfium, form: number, annot: number, w: Widget, f: FormField): void {
  if (w.type === 'text') {
    if (w.flags & FORMFLAG_TEXT_PASSWORD) return;
    const v = utf16(m, (b, l) => m.FPDFAnnot_GetFormFieldValue(form, annot, b, l), Infinity);
    f.value = v.length ? v : null;
  } else if (w.type === 'dropdown' || w.type === 'listbox') {
    const n = Math.min(MAX_OPTIONS, Math.max(0, m.FPDFAnnot_GetOptionCount(form, annot)));
    const options: string[] = [];
    const chosen: string[] = [];
    for (let k = 0; k < n; k++) {
      const label = utf16(m, (b, l) => m.FPDFAnnot_GetOptionLabel(form, annot, k, b, l), Infinity);
      options.push(label);
      if (m.FPDFAnnot_IsOptionSelected(form, annot, k) && label) chosen.push(label);
    }
    f.options = options;
    if (!chosen.length) {
      // an editable dropdown holds typed text that is none of its options
      const v = utf16(m, (b, l) => m.FPDFAnnot_GetFormFieldValue(form, annot, b, l), Infinity);
      if (v.trim()) chosen.push(v);
    }
    f.value = chosen.length ? chosen : null;
  }
}

/**
 * The fields with the values their dictionaries hold where PDFium's form API reads less (`values` from
 * formValues, by qualified name): a choice shows the display labels of every chosen option (PDFium gives an
 * export value, "2", or only the first of several written as names), a text field's value written as a
 * stream is read. Text keeps its lines, as LF.
 */
export function withFormValues(fields: FormField[], values: Map<string, FormValue> | undefined): FormField[] {
  for (const f of fields) {
    const found = formValueOf(values, f.name);
    const known = found && (found.value.type === 'text' ? f.type === 'text' : f.type === 'dropdown' || f.type === 'listbox') ? found : undefined;
    // PDFium names some fields by the last part of their name only
    if (known) f.name = known.name;
    const v = known?.value;
    if (f.type === 'text') {
      if (typeof f.value === 'string') f.value = f.value.replace(/\r\n?/g, '\n');
      else if (v?.type === 'text' && v.value) f.value = v.value;
    } else if ((f.type === 'dropdown' || f.type === 'listbox') && v?.type === 'choice' && v.value.length) {
      f.value = v.value;
    }
  }
  return fields;
}

/** Compatibility characters to normalise: spaces, ligatures, Hebrew and Arabic presentation forms. */
const COMPAT = /[\u00a0\u2000-\u200a\u202f\ufb00-\ufdff\ufe70-\ufefe]+/g;

/** The text a viewer shows for a field: its text, the chosen options, ☒ for a ticked box, ◉ for a chosen radio button. */
export function fieldText(f: FormField): string {
  switch (f.type) {
    case 'text':
      return typeof f.value === 'string' ? f.value : '';
    case 'checkbox':
      return f.value === true ? '\u2612' : '';
    case 'radio':
      return typeof f.value === 'string' ? '\u25c9' : '';
    case 'dropdown':
    case 'listbox':
      return Array.isArray(f.value) ? f.value.filter((v) => v.length > 0).join(', ') : typeof f.value === 'string' ? f.value : '';
    default:
      return '';
  }
}

/**
 * The values of filled-in fields as text items where the fields are: a page's text has only what is
 * printed on it, while a viewer shows the field values on top (a prefilled tax form). Laid out with the
 * printed labels next to them, they read "Name: value". Hidden fields and empty ones give nothing.
 */
export function fieldItems(fields: FormField[]): TextItem[] {
  const items: TextItem[] = [];
  for (const f of fields) {
    if (f.hidden) continue;
    const text = fieldText(f).replace(COMPAT, (s) => s.normalize('NFKC'));
    if (!text.trim()) continue;
    const { x: x0, y: top, width, height } = f.bbox;
    const x1 = x0 + width, bottom = top + height;
    if (!(width > 1 && height > 1)) continue;
    const lines = text.split(/\r\n|\r|\n/).filter((l) => l.trim());
    // the field's font size, kept near body text (field values are never headings)
    const da = f.fontSize ?? 0;
    const size = Math.max(6, Math.min(10, da > 0 ? da : (height / Math.max(1, lines.length)) * 0.6));
    lines.forEach((line, i) => {
      const baseline = lines.length === 1 ? bottom - Math.max(1, (height - size) / 2) - size * 0.2 : top + size * (1.15 * i + 1);
      const str = line.trim();
      items.push({ str, x: x0 + Math.min(2, width / 10), top: baseline - size * 0.8, bottom: baseline + size * 0.2, baseline, width: Math.min(x1 - x0, str.length * size * 0.5), size, bold: false, italic: false, rtl: false });
    });
  }
  return items;
}
