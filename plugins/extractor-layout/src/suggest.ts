/**
 * Schema suggestion from a parsed document: fields for the key-values it prints ("Label: value", key_value
 * blocks, known labels followed by a value in the next column) and array fields for its tables, with
 * types inferred from the printed values.
 */
import type { FieldDefinition, ParsedDocument } from '@quire/core';
import { concept, conceptsOfPhrase, parseBoolean, parseDate, parseNumber, snakeCase, tokenize } from '@quire/fields';
import { LayoutIndex, headerRowCount } from './layout.js';

export type SuggestedField = FieldDefinition & { suggestionReason: string };

/** Type of a printed value: date, number (amounts, counts; not long ids), boolean (marks, yes/no), else string. */
export function inferType(value: string): FieldDefinition['type'] {
  const v = value.trim();
  if (!v) return 'string';
  if (parseDate(v)) return 'date';
  if (/^\d{6,}$/.test(v.replace(/\s/g, '')) || /^0\d+$/.test(v)) return 'string';
  if (parseNumber(v) !== null) return 'number';
  if (parseBoolean(v) !== null && v.length <= 5) return 'boolean';
  return 'string';
}

const LABEL_VALUE = /^([\p{L}][\p{L}\p{N} .#/&()'’-]{0,40}?)\s*[:：]\s*(\S.*)$/u;

export function suggestFields(doc: ParsedDocument): SuggestedField[] {
  const index = new LayoutIndex(doc);
  const out: SuggestedField[] = [];
  const names = new Set<string>();
  const add = (label: string, value: string, page: number, where: string) => {
    const toks = tokenize(label);
    if (!toks.length || toks.length > 6 || !value.trim()) return;
    const known = conceptsOfPhrase(label)[0];
    const c = concept(known);
    const name = known ?? snakeCase(label);
    if (names.has(name)) return;
    let type = inferType(value);
    if (c?.type && c.type !== type && (c.type === 'date' ? parseDate(value) : c.type === 'number' ? parseNumber(value) !== null : false)) type = c.type;
    names.add(name);
    const shown = value.trim().length > 40 ? `${value.trim().slice(0, 37)}...` : value.trim();
    out.push({ name, type, description: c ? `${label.trim()} (${c.id.replace(/_/g, ' ')})` : label.trim(), suggestionReason: `${where} "${label.trim()}" on page ${page} (value "${shown}")` });
  };
  for (const b of doc.blocks) {
    if (b.type === 'key_value' && b.key && b.value) add(b.key, b.value, b.page, 'key-value');
  }
  for (const u of index.units) {
    if (u.kind !== 'line' || u.blockType === 'key_value') continue;
    const segs = index.segments(u);
    for (const [i, s] of segs.entries()) {
      const m = LABEL_VALUE.exec(s.text);
      if (m) {
        add(m[1]!, m[2]!, u.page, 'label');
        continue;
      }
      // a known label alone in its column with the value in the next column ("Rechnungsnr.    30064443")
      const next = segs[i + 1];
      if (next && conceptsOfPhrase(s.text).length && !/[:：]/.test(next.text)) add(s.text, next.text, u.page, 'label');
    }
  }
  doc.tables.forEach((t, ti) => {
    const cells = index.units.filter((u) => u.cell?.table === ti);
    const heads = Math.max(1, headerRowCount(t));
    if (t.rows <= heads) return;
    const properties: Record<string, FieldDefinition> = {};
    const headers: string[] = [];
    for (let c = 0; c < t.cols; c++) {
      const header = cells.filter((u) => u.cell!.col === c && u.cell!.row < heads).map((u) => u.text).join(' ').trim();
      if (!header) continue;
      const values = cells.filter((u) => u.cell!.col === c && u.cell!.row >= heads && u.text.trim()).map((u) => u.text);
      const types = values.map(inferType);
      const type = types.length && types.every((x) => x === types[0]) ? types[0]! : 'string';
      let key = snakeCase(header);
      while (properties[key]) key = `${key}_${c}`;
      properties[key] = { name: key, type, description: header };
      headers.push(header);
    }
    if (!headers.length) return;
    const tb = index.tableBlocks.get(ti);
    const before = tb ? doc.blocks[doc.blocks.indexOf(tb) - 1] : undefined;
    const heading = before?.type === 'heading' || before?.type === 'caption' ? before.text : undefined;
    const base = t.title ? snakeCase(t.title) : heading ? snakeCase(heading) : Object.keys(properties).some((k) => /qty|quantity|price|amount|menge|aantal|prijs|preis/.test(k)) ? 'line_items' : `table_${ti + 1}`;
    let name = base;
    for (let n = 2; names.has(name); n++) name = `${base}_${n}`;
    names.add(name);
    out.push({
      name,
      type: 'array',
      description: t.title ?? heading ?? `Rows of the table on page ${t.page}`,
      items: { name: 'row', type: 'object', properties },
      suggestionReason: `table on page ${t.page} with ${t.rows - heads} rows and columns ${headers.map((h) => `"${h}"`).join(', ')}`,
    });
  });
  return out;
}
