/**
 * Array fields from the layout: arrays of objects from table rows (columns mapped to item properties by
 * header matching, continuation tables merged, multi-line descriptions joined, summary rows left out) and
 * arrays of primitives from lists, comma-separated values after a label, or a table column.
 */
import type { FieldDefinition, Span } from '@quire/core';
import { concept, conceptOf, fieldLabels, scoreLabelText, tokenize, type Concept, type FieldLabels } from './labels.js';
import { scanTyped, type ParseContext } from './parse/value.js';
import { headerRowCount, type LayoutIndex, type Scope, type Unit } from './layout.js';

export interface ArrayOutcome {
  value: unknown[];
  /** 0..1 before calibration: header match × parse success */
  score: number;
  span: Span;
  page: number;
  note: string;
  unit?: Unit;
}

const ITEM_NAMES: [string, string[]][] = [
  ['description', ['name', 'description', 'desc', 'item', 'product', 'article', 'service', 'title', 'line', 'label', 'text']],
  ['quantity', ['qty', 'quantity', 'count', 'units', 'hours', 'amount rooms']],
  ['unit_price', ['price', 'unit', 'rate', 'cost', 'each', 'price unit']],
  ['line_total', ['amount', 'total', 'subtotal', 'sum', 'net', 'line total', 'price subtotal']],
  ['tax_rate', ['tax', 'vat', 'btw', 'percent', 'rate tax']],
];

/** Concept of a line-item property: line-item meanings first ("price" is a unit price in a row). */
export function itemConcept(prop: FieldDefinition): Concept | undefined {
  const toks = tokenize(prop.name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')).map((t) => t.t);
  const has = (w: string) => w.split(' ').every((x) => toks.includes(x));
  if (has('tax') || has('vat')) return concept('tax_rate');
  if (has('subtotal') || (has('price') && has('subtotal'))) return concept('line_total');
  for (const [id, names] of ITEM_NAMES) if (names.some((n) => has(n) && n.split(' ').length > 1)) return concept(id);
  for (const [id, names] of ITEM_NAMES) if (names.some((n) => toks[0] === n || (toks.length === 1 && has(n)))) return concept(id);
  return conceptOf(prop);
}

interface Column {
  col: number;
  header: string;
}

const parseCell = (text: string, def: FieldDefinition, ctx: ParseContext): { value: unknown; clean: boolean } => {
  const t = text.trim();
  if (!t) return { value: null, clean: true };
  if (def.type === 'string') return { value: t, clean: true };
  const c = concept(itemConcept(def)?.id);
  const found = scanTyped(t, def.type, { ...ctx, money: c?.money });
  const m = (c?.money ? found.filter((x) => x.amountLike && !x.percent)[0] : undefined) ?? found[0];
  if (!m) return { value: null, clean: false };
  return { value: m.value, clean: m.start <= 3 && t.length - m.end <= 3 };
};

/** Table rows mapped to the item properties of an array-of-objects field. */
export function rowsFromTables(field: FieldDefinition, index: LayoutIndex, ctx: ParseContext, scope: Scope = index.all): ArrayOutcome | null {
  const props = Object.entries(field.items?.properties ?? {}).map(([k, def]) => ({ key: k, def: { ...def, name: def.name ?? k } }));
  if (!props.length) return null;
  const labels = new Map(props.map((p) => [p.key, fieldLabels(p.def, itemConcept(p.def))]));
  const fieldLabel = fieldLabels(field);
  const doc = index.doc;
  type Plan = { ti: number; assign: Map<string, Column>; score: number; heads: number };
  const plans: Plan[] = [];
  doc.tables.forEach((table, ti) => {
    const cells = index.cellsOf(ti);
    if (!cells.some((u) => scope.has(u)) || table.rows < 2) return;
    const heads = Math.max(1, headerRowCount(table));
    const headerOf = (c: number) => cells.filter((u) => u.cell!.col === c && u.cell!.row < heads).map((u) => u.text).join(' ');
    const pairs: { key: string; col: number; s: number }[] = [];
    for (const p of props) {
      for (let c = 0; c < table.cols; c++) {
        let s = scoreLabelText(headerOf(c), labels.get(p.key)!);
        if (s < 0.45) continue;
        if (p.def.type === 'number' || p.def.type === 'date') {
          const body = cells.filter((u) => u.cell!.col === c && u.cell!.row >= heads && u.text.trim());
          const ok = body.filter((u) => scanTyped(u.text, p.def.type).length > 0).length;
          if (body.length && ok / body.length < 0.5) s *= 0.5;
        }
        pairs.push({ key: p.key, col: c, s });
      }
    }
    pairs.sort((a, b) => b.s - a.s);
    const assign = new Map<string, Column>();
    const usedCols = new Set<number>();
    let total = 0;
    for (const pr of pairs) {
      if (assign.has(pr.key) || usedCols.has(pr.col) || pr.s < 0.45) continue;
      assign.set(pr.key, { col: pr.col, header: headerOf(pr.col) });
      usedCols.add(pr.col);
      total += pr.s;
    }
    const need = Math.min(2, props.length);
    if (assign.size < need) return;
    let score = total / props.length;
    const title = [table.title ?? '', ...doc.blocks.filter((b) => b.type === 'heading' && b.span.end <= (index.tableBlocks.get(ti)?.span.start ?? 0)).slice(-1).map((b) => b.text)].join(' ');
    if (title.trim() && scoreLabelText(title, fieldLabel) >= 0.5) score = Math.min(1, score * 1.1);
    plans.push({ ti, assign, score, heads });
  });
  if (!plans.length) return null;
  const best = plans.reduce((a, b) => (b.score > a.score ? b : a));
  // continuation tables (same columns on later pages) join the best one
  const sig = (p: Plan) => [...p.assign.entries()].map(([k, c]) => `${k}:${c.col}:${c.header.toLowerCase()}`).sort().join('|');
  const chosen = plans.filter((p) => p === best || (p.ti > best.ti && sig(p) === sig(best))).sort((a, b) => a.ti - b.ti);

  const rows: Record<string, unknown>[] = [];
  let cellsSeen = 0, cellsClean = 0;
  let first: Span | null = null, last: Span | null = null;
  const descKey = props.find((p) => p.def.type === 'string' && itemConcept(p.def)?.id === 'description')?.key;
  const summary = ['total', 'subtotal', 'tax'].map((id) => fieldLabels({ name: id, type: 'number' }));
  for (const plan of chosen) {
    const table = doc.tables[plan.ti]!;
    const cells = index.cellsOf(plan.ti);
    for (let r = plan.heads; r < table.rows; r++) {
      const rowCells = cells.filter((u) => u.cell!.row === r);
      if (!rowCells.some((u) => u.text.trim())) continue;
      const firstText = rowCells.sort((a, b) => a.cell!.col - b.cell!.col).find((u) => u.text.trim())?.text ?? '';
      if (summary.some((l) => scoreLabelText(firstText, l) >= 0.8)) continue;
      const obj: Record<string, unknown> = {};
      let filled = 0;
      let onlyDesc = true;
      for (const p of props) {
        const col = plan.assign.get(p.key);
        const u = col ? rowCells.find((x) => x.cell!.col === col.col) : undefined;
        const parsed = u ? parseCell(u.text, p.def, ctx) : { value: null, clean: true };
        obj[p.key] = parsed.value;
        if (u?.text.trim()) {
          cellsSeen++;
          if (parsed.clean && parsed.value !== null) cellsClean++;
          filled++;
          if (p.key !== descKey) onlyDesc = false;
          first ??= { start: u.start, end: u.end };
          last = { start: u.start, end: u.end };
        }
      }
      if (!filled) continue;
      // a row with only a description continues the previous item's description
      if (onlyDesc && descKey && rows.length && plan.assign.size > 1) {
        const prev = rows[rows.length - 1]!;
        prev[descKey] = [prev[descKey], obj[descKey]].filter(Boolean).join('\n');
        continue;
      }
      rows.push(obj);
    }
  }
  if (!rows.length || !first || !last) return null;
  const parseRate = cellsSeen ? cellsClean / cellsSeen : 0;
  const headers = [...best.assign.entries()].map(([k, c]) => `${k}←"${c.header.trim()}"`).join(', ');
  return {
    value: rows,
    score: best.score * (0.6 + 0.4 * parseRate),
    span: { start: first.start, end: last.end },
    page: doc.tables[best.ti]!.page,
    note: `table on page ${doc.tables[best.ti]!.page} (${rows.length} rows; ${headers})`,
  };
}

/** Arrays of primitives: a list after a label, values after "Label:", or a table column named like the field. */
export function listValues(field: FieldDefinition, index: LayoutIndex, ctx: ParseContext, scope: Scope = index.all): ArrayOutcome | null {
  const item: FieldDefinition = field.items ?? { name: 'item', type: 'string' };
  const labels: FieldLabels = fieldLabels(field);
  const doc = index.doc;
  const parse = (t: string) => (item.type === 'string' ? t.trim().replace(/^[-•*·▪◦]\s*/, '') : (scanTyped(t, item.type, ctx)[0]?.value ?? null));
  let best: ArrayOutcome | null = null;
  const offer = (o: ArrayOutcome) => {
    if (o.value.length && (!best || o.score > best.score)) best = o;
  };
  for (const u of scope.units) {
    if (u.kind !== 'line') continue;
    const colon = u.text.search(/[:：]/);
    const labelText = colon > 0 ? u.text.slice(0, colon) : u.text;
    if (labelText.length > 60) continue;
    const ls = scoreLabelText(labelText, labels);
    if (ls < 0.6) continue;
    const inline = colon > 0 ? u.text.slice(colon + 1) : '';
    if (inline.trim()) {
      const base = u.start + colon + 1;
      const parts = [...inline.matchAll(/[^,;]+/g)].flatMap((m) => m[0].split(/\s+(?:and|und|et)\s+/).map((p) => p.trim())).filter(Boolean);
      const values = parts.map(parse).filter((v) => v !== null && v !== '');
      const lead = inline.length - inline.trimStart().length;
      offer({ value: values, score: ls * 0.95, span: { start: base + lead, end: u.end }, page: u.page, note: `values after label "${labelText.trim()}"`, unit: u });
      continue;
    }
    // following list items (or lines of the same block)
    const items: Unit[] = [];
    for (let i = u.id + 1; i < index.units.length && items.length < 100; i++) {
      const v = index.units[i]!;
      if (v.kind !== 'line') break;
      const isList = v.blockType === 'list_item' || /^\s*([-•*·▪◦]|\d+[.)])\s+/.test(v.text);
      if (!(isList || (v.block === u.block && items.length < 30))) break;
      if (/[:：]\s*$/.test(v.text)) break;
      items.push(v);
    }
    if (!items.length) continue;
    const values = items.map((v) => parse(v.text.replace(/^\s*\d+[.)]\s+/, ''))).filter((v) => v !== null && v !== '');
    offer({ value: values, score: ls * 0.9 * (values.length / items.length), span: { start: items[0]!.start, end: items[items.length - 1]!.end }, page: u.page, note: `list under label "${labelText.trim()}"`, unit: items[0] });
  }
  // a table column whose header names the field
  doc.tables.forEach((table, ti) => {
    const cells = index.cellsOf(ti);
    if (!cells.some((u) => scope.has(u))) return;
    const heads = Math.max(1, headerRowCount(table));
    for (let c = 0; c < table.cols; c++) {
      const header = cells.filter((u) => u.cell!.col === c && u.cell!.row < heads).map((u) => u.text).join(' ');
      const ls = scoreLabelText(header, labels);
      if (ls < 0.6) continue;
      const body = cells.filter((u) => u.cell!.col === c && u.cell!.row >= heads && u.text.trim());
      if (!body.length) continue;
      const values = body.map((u) => parse(u.text)).filter((v) => v !== null && v !== '');
      offer({ value: values, score: ls * 0.92 * (values.length / body.length), span: { start: body[0]!.start, end: body[body.length - 1]!.end }, page: table.page, note: `table column "${header.trim()}"`, unit: body[0] });
    }
  });
  return best;
}
