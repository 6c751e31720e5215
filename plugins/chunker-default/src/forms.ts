import { unionBBox } from '@quire/core';
import type { BBox, ParsedDocument, Table, TableCell } from '@quire/core';

/**
 * The filled-in fields of a form (a reader's `metadata.form_fields`: PDF AcroForms) as tables, one a page:
 * `Field | Value`, each row a field that holds a value, labelled by its name made readable. On the page a
 * value is drawn inside its widget, often far from the printed label or with none ("Qux Baz" under a column
 * of labels); this table keeps each value next to what it is, so that search, chat and extraction find
 * "Emergency Contact | Qux Baz" where the page text has only "Qux Baz".
 */
export interface FormFieldLike {
  name?: unknown;
  type?: unknown;
  value?: unknown;
  page?: unknown;
  bbox?: unknown;
  hidden?: unknown;
}

/** The title of each form-field table, and the heading of its chunks. */
export const FORM_FIELDS_HEADING = 'Form fields';

/** Most rows of one page's table, and of all of a document's (a form of hundreds of combed boxes would give a wall of digits). */
const MAX_ROWS = 400;
const MAX_ROWS_TOTAL = 4000;
/** Longest value kept whole; a longer one is cut at a word boundary with an ellipsis. */
const MAX_VALUE = 300;

/** Segments that authoring tools generate and that say nothing of the field (`topmostSubform`, `Page1`, `f1_01`, `Text3`, `Check Box2`). */
const GENERATED = /^(?:topmost)?subform\d*$|^page\d*$|^(?:text|field|check\s*box|checkbox|radio\s*button|group|combo\s*box|list\s*box|dropdown|button|form|untitled)\s*\d*$/i;

/**
 * A readable label for a field name: the last segment of the qualified name (`a.b[0].c[0]`) that says
 * something (three letters in a row, not a generated name), camel case and underscores spaced out;
 * null when no segment does.
 */
export function fieldLabel(name: string): string | null {
  const segments = name.split('.').map((s) => s.replace(/\[\d+\]$/, '').trim()).filter(Boolean);
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i]!;
    if (!/\p{L}{3}/u.test(s) || GENERATED.test(s)) continue;
    const label = s
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/[_\s-]+/g, ' ')
      .trim();
    return label ? label[0]!.toUpperCase() + label.slice(1) : null;
  }
  return null;
}

/** What a field holds, as text: null when empty, unticked, or a button or signature (no value to read). */
export function fieldValue(f: FormFieldLike): string | null {
  const v = f.value;
  if (f.type === 'button' || f.type === 'signature' || v === null || v === undefined || v === false) return null;
  if (v === true) return 'Yes';
  const text = (Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(', ') : typeof v === 'string' || typeof v === 'number' ? String(v) : '')
    .replace(/^\//, '') // a PDF name (/On, /Choice1) as the export value of a radio button
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || /^off$/i.test(text)) return null;
  if (text.length <= MAX_VALUE) return text;
  const cut = text.slice(0, MAX_VALUE);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_VALUE / 2))}…`;
}

const isBox = (b: unknown): b is BBox =>
  !!b && typeof b === 'object' && ['x', 'y', 'width', 'height'].every((k) => Number.isFinite((b as Record<string, unknown>)[k]));

/** One table a page with filled-in, labelled, visible fields, in page order; none for a document without form fields. */
export function formTables(doc: ParsedDocument): Table[] {
  const fields = doc.metadata?.form_fields;
  if (!Array.isArray(fields) || !fields.length) return [];
  const byPage = new Map<number, { label: string; value: string; bbox: BBox | null }[]>();
  let total = 0;
  for (const f of fields as FormFieldLike[]) {
    if (total >= MAX_ROWS_TOTAL) break;
    if (!f || typeof f !== 'object' || f.hidden === true || typeof f.name !== 'string') continue;
    const label = fieldLabel(f.name);
    const value = fieldValue(f);
    if (!label || !value) continue;
    const page = Number.isInteger(f.page) && (f.page as number) > 0 ? (f.page as number) : 1;
    const rows = byPage.get(page) ?? [];
    if (rows.length < MAX_ROWS) {
      rows.push({ label, value, bbox: isBox(f.bbox) ? f.bbox : null });
      total++;
    }
    byPage.set(page, rows);
  }
  const tables: Table[] = [];
  for (const [page, rows] of [...byPage.entries()].sort((a, b) => a[0] - b[0])) {
    const cells: TableCell[] = [
      { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: 'Field', header: true, bbox: null },
      { row: 0, col: 1, rowSpan: 1, colSpan: 1, text: 'Value', header: true, bbox: null },
    ];
    rows.forEach((r, i) => {
      cells.push({ row: i + 1, col: 0, rowSpan: 1, colSpan: 1, text: r.label, bbox: r.bbox });
      cells.push({ row: i + 1, col: 1, rowSpan: 1, colSpan: 1, text: r.value, bbox: r.bbox });
    });
    tables.push({ page, bbox: unionBBox(rows.map((r) => r.bbox)) ?? null, rows: rows.length + 1, cols: 2, cells, title: FORM_FIELDS_HEADING, confidence: 1 });
  }
  return tables;
}
