/**
 * The values of AcroForm fields as a viewer shows them, read from the field dictionaries with pdf-lib: what
 * PDFium's form API and pdf-lib's own getters miss on real forms.
 * - a choice (dropdown, list) shows the display label of each chosen option: the value (/V) holds export
 *   values ("2" for "Young Abraham Lincoln (Ranger Ed)"), written as strings or as names, one or an array
 *   (several chosen in a multi-choice list), or only the indices of the chosen options (/I);
 * - a text field's value may be a text stream (a long multi-line value), and its lines end in CR, CR LF or
 *   LF: lines are kept, as LF.
 * Shared by the PDF reader (the text of a filled-in form) and the PDF editor (the current value of a field).
 */
import {
  PDFArray,
  PDFDocument,
  PDFDropdown,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOptionList,
  PDFRawStream,
  PDFString,
  PDFTextField,
  decodePDFRawStream,
} from 'pdf-lib';
import type { PDFObject } from 'pdf-lib';

/** Most options of one field looked at, and most characters of one value (a hostile file can hold millions). */
const MAX_OPTIONS = 2_000;
const MAX_CHARS = 100_000;

/** A text string, a name or a text stream as text; null for anything else. */
function textOf(o: PDFObject | undefined): string | null {
  if (o instanceof PDFString || o instanceof PDFHexString) return o.decodeText();
  if (o instanceof PDFName) return o.decodeText();
  if (o instanceof PDFRawStream) {
    try {
      const bytes = decodePDFRawStream(o).decode().subarray(0, MAX_CHARS * 2);
      if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return Buffer.from(bytes.subarray(3)).toString('utf8');
      return Buffer.from(bytes).toString('latin1');
    } catch {
      return null;
    }
  }
  return null;
}

/** Line ends as LF, and no more than MAX_CHARS. */
const lines = (s: string) => s.slice(0, MAX_CHARS).replace(/\r\n?/g, '\n');

/** A text field's value (null when empty): a text string or a text stream, lines kept. */
export function textFieldValue(field: PDFTextField): string | null {
  let v: PDFObject | undefined;
  try {
    v = field.acroField.V();
  } catch {
    return null;
  }
  const t = textOf(v);
  return t && t.length ? lines(t) : null;
}

/**
 * The chosen options of a dropdown or list by their display labels, in the order of the options; a value
 * that is none of the options (the typed text of an editable dropdown) follows as it is. From /V (strings
 * or names, one or an array), else from /I (the indices of the chosen options). Empty when none is chosen.
 */
export function choiceFieldValues(field: PDFDropdown | PDFOptionList): string[] {
  const dict = field.acroField.dict;
  let options: { value: string; display: string }[] = [];
  let raw: PDFObject | undefined;
  try {
    options = field.acroField
      .getOptions()
      .slice(0, MAX_OPTIONS)
      .map((o) => ({ value: o.value.decodeText(), display: (o.display ?? o.value).decodeText() }));
    raw = field.acroField.V();
  } catch {
    return [];
  }
  const given = (raw instanceof PDFArray ? raw.asArray().slice(0, MAX_OPTIONS).map((_, k) => (raw as PDFArray).lookup(k)) : [raw])
    .map(textOf)
    .filter((t): t is string => t !== null && t.trim().length > 0);
  const chosen = new Set<number>();
  const typed: string[] = [];
  for (const g of given) {
    const k = options.findIndex((o) => o.value === g);
    const byLabel = k >= 0 ? k : options.findIndex((o) => o.display === g);
    if (byLabel >= 0) chosen.add(byLabel);
    else typed.push(lines(g));
  }
  if (!given.length) {
    const idx = dict.lookup(PDFName.of('I'));
    if (idx instanceof PDFArray) {
      for (const o of idx.asArray().slice(0, MAX_OPTIONS)) {
        const n = dict.context.lookup(o);
        if (n instanceof PDFNumber && Number.isInteger(n.asNumber()) && n.asNumber() >= 0 && n.asNumber() < options.length) chosen.add(n.asNumber());
      }
    }
  }
  return [...[...chosen].sort((a, b) => a - b).map((k) => options[k]!.display), ...typed];
}

/** What a field of a form holds, by its fully qualified name: a text field's text, a choice's display labels. */
export type FormValue = { type: 'text'; value: string | null } | { type: 'choice'; value: string[] };

/**
 * The field named `name` in `values`, with its fully qualified name: by that name, else (a reader that gives
 * only the last part of the name, as PDFium does for a text field whose value is a stream) the one field
 * whose name ends with that part; undefined when none or several do.
 */
export function formValueOf(values: Map<string, FormValue> | undefined, name: string): { name: string; value: FormValue } | undefined {
  if (!values) return undefined;
  const exact = values.get(name);
  if (exact) return { name, value: exact };
  if (name.includes('.')) return undefined;
  let found: { name: string; value: FormValue } | undefined;
  for (const [k, v] of values) {
    if (!k.endsWith(`.${name}`)) continue;
    if (found) return undefined;
    found = { name: k, value: v };
  }
  return found;
}

/**
 * Most objects a file may hold for its values to be read with pdf-lib. pdf-lib parses every object of the file
 * at load, about 1 KB of heap each: a hostile file of 150,000 small objects (9 MB) takes more than 128 MB, and
 * the reader's isolate would die over what PDFium reads within its own limits. Real forms hold a few thousand.
 */
export const FORM_VALUES_MAX_OBJECTS = 20_000;

/**
 * How many objects a PDF holds, counted without parsing it: the `obj` headers of the file, plus the count
 * (`/N`) each object stream declares for the objects packed inside it. A stream whose count cannot be found
 * counts as too many.
 */
export function pdfObjectCount(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let count = 0;
  for (const m of text.matchAll(/\d+\s+\d+\s+obj\b|\/ObjStm\b/g)) {
    if (m[0] !== '/ObjStm') {
      count++;
      continue;
    }
    // the stream's dictionary: /N is declared near /Type /ObjStm, before its `stream` keyword
    const from = Math.max(0, m.index! - 300);
    const end = text.indexOf('stream', m.index!);
    const dict = text.slice(from, end >= 0 ? Math.min(end, m.index! + 300) : m.index! + 300);
    const n = /\/N\s+(\d+)/.exec(dict);
    count += n ? Number(n[1]) : FORM_VALUES_MAX_OBJECTS + 1;
    if (count > FORM_VALUES_MAX_OBJECTS) break;
  }
  return count;
}

/**
 * The text and choice values of a PDF's AcroForm by fully qualified field name (empty for a PDF without one,
 * an encrypted one, one pdf-lib cannot read, or one of more than FORM_VALUES_MAX_OBJECTS objects, which
 * pdf-lib could not load within a reader's memory: PDFium's own reading of its fields stands then).
 */
export async function formValues(bytes: Uint8Array): Promise<Map<string, FormValue>> {
  const out = new Map<string, FormValue>();
  if (pdfObjectCount(bytes) > FORM_VALUES_MAX_OBJECTS) return out;
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch {
    return out;
  }
  if (doc.isEncrypted) return out;
  let fields;
  try {
    fields = doc.getForm().getFields();
  } catch {
    return out;
  }
  for (const f of fields) {
    // a password field's text is never read
    if (f instanceof PDFTextField) out.set(f.getName(), { type: 'text', value: f.isPassword() ? null : textFieldValue(f) });
    else if (f instanceof PDFDropdown || f instanceof PDFOptionList) out.set(f.getName(), { type: 'choice', value: choiceFieldValues(f) });
  }
  return out;
}
