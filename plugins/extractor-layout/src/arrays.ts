/**
 * Array fields from the layout: arrays of objects from table rows (columns mapped to item properties by
 * header matching, continuation tables merged, multi-line descriptions joined, summary rows left out) and
 * arrays of primitives from lists, comma-separated values after a label, or a table column.
 */
import type { FieldDefinition, Span, Table } from '@quire/core';
import { concept, conceptOf, scanTyped, tokenize, type Concept, type ParseContext } from '@quire/fields';
import { fieldLabels, scoreLabelText, type FieldLabels } from './labels.js';
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

/** A header row that holds amounts is a body row the reader took for a header (a table cut off its real header). */
function bodyLikeHeader(table: Table, heads: number): boolean {
  return table.cells.some((c) => c.row < heads && c.text.trim() && scanTyped(c.text, 'number').some((m) => m.amountLike && !m.percent));
}

type XRange = { x0: number; x1: number };

/** Horizontal extent of each column from its single-column cells' boxes (null when a column has none). */
function columnRanges(table: Table): (XRange | null)[] {
  return Array.from({ length: table.cols }, (_, c) => {
    const boxes = table.cells.filter((x) => x.col === c && x.colSpan === 1 && x.bbox).map((x) => x.bbox!);
    if (!boxes.length) return null;
    return { x0: Math.min(...boxes.map((b) => b.x)), x1: Math.max(...boxes.map((b) => b.x + b.width)) };
  });
}

const overlapOf = (a: XRange, b: XRange) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));

/**
 * Columns of a later table mapped onto the item table's columns by position: each of its columns onto the
 * item columns it covers (most of their width) or the one it sits inside. Null when the two do not line up.
 */
function mapByPosition(item: (XRange | null)[], next: (XRange | null)[]): number[][] | null {
  if (item.some((r) => !r) || next.some((r) => !r)) return null;
  const a = item as XRange[], b = next as XRange[];
  const width = a[a.length - 1]!.x1 - a[0]!.x0;
  const tol = 5 + 0.05 * width;
  if (Math.abs(a[0]!.x0 - b[0]!.x0) > tol || Math.abs(a[a.length - 1]!.x1 - b[b.length - 1]!.x1) > tol) return null;
  const map = b.map((r) => {
    const covered = a.map((c, i) => ({ i, ov: overlapOf(c, r), w: c.x1 - c.x0 })).filter((x) => x.ov >= 0.5 * x.w).map((x) => x.i);
    if (covered.length) return covered;
    const inside = a.map((c, i) => ({ i, ov: overlapOf(c, r) })).filter((x) => x.ov >= 0.5 * (r.x1 - r.x0));
    return inside.map((x) => x.i);
  });
  if (map.some((m) => !m.length)) return null;
  // every item column is reached, in left-to-right order
  const reached = new Set(map.flat());
  if (reached.size !== a.length) return null;
  return map;
}

/**
 * Splits a cell that runs across several item columns (a reader merged them: no rule or gap between) from
 * the right: each numeric column takes the number the text ends with, the leftmost column the rest.
 * Offsets are relative to the text; a column whose value cannot be told apart gets nothing.
 */
function splitAcross(text: string, cols: number[], numeric: (c: number) => 'money' | 'number' | null): Map<number, { a: number; b: number }> {
  const out = new Map<number, { a: number; b: number }>();
  let end = text.trimEnd().length;
  for (let k = cols.length - 1; k >= 1; k--) {
    const kind = numeric(cols[k]!);
    if (!kind) continue;
    const head = text.slice(0, end);
    const words = [...head.matchAll(/\S+/g)];
    for (let n = 1; n <= Math.min(3, words.length - 1); n++) {
      const at = words[words.length - n]!.index!;
      const tail = head.slice(at);
      const ms = scanTyped(tail, 'number');
      if (ms.length !== 1 || ms[0]!.percent || ms[0]!.start > 2 || tail.length - ms[0]!.end > 1) continue;
      if (kind === 'money' && !ms[0]!.amountLike) break;
      out.set(cols[k]!, { a: at, b: end });
      end = head.slice(0, at).trimEnd().length;
      break;
    }
  }
  const lead = text.length - text.trimStart().length;
  if (end > lead) out.set(cols[0]!, { a: lead, b: end });
  return out;
}

/** Table rows mapped to the item properties of an array-of-objects field. */
export function rowsFromTables(field: FieldDefinition, index: LayoutIndex, ctx: ParseContext, scope: Scope = index.all): ArrayOutcome | null {
  const props = Object.entries(field.items?.properties ?? {}).map(([k, def]) => ({ key: k, def: { ...def, name: def.name ?? k } }));
  if (!props.length) return null;
  const labels = new Map(props.map((p) => [p.key, fieldLabels(p.def, itemConcept(p.def))]));
  const fieldLabel = fieldLabels(field);
  const doc = index.doc;
  type Plan = { ti: number; assign: Map<string, Column>; score: number; heads: number };
  const plans: Plan[] = [];
  const headsOf = (ti: number) => {
    const table = doc.tables[ti]!;
    const h = headerRowCount(table);
    return h && bodyLikeHeader(table, h) ? 0 : h;
  };
  doc.tables.forEach((table, ti) => {
    const cells = index.cellsOf(ti);
    if (!cells.some((u) => scope.has(u)) || table.rows < 2) return;
    if (headerRowCount(table) && !headsOf(ti)) return;
    const heads = Math.max(1, headsOf(ti));
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
  const bestTable = doc.tables[best.ti]!;

  // what each item column holds: the property assigned to it, else what its body cells parse as
  const propOfCol = new Map([...best.assign.entries()].map(([k, c]) => [c.col, props.find((p) => p.key === k)!]));
  const bestCells = index.cellsOf(best.ti);
  const numericCol = (c: number): 'money' | 'number' | null => {
    const p = propOfCol.get(c);
    if (p && p.def.type !== 'number') return null;
    const body = bestCells.filter((u) => u.cell!.col === c && u.cell!.row >= best.heads && u.text.trim());
    const nums = body.map((u) => scanTyped(u.text, 'number').filter((m) => !m.percent));
    if (!p && (!body.length || nums.filter((n) => n.length).length / body.length < 0.5)) return null;
    return body.length && nums.every((n) => !n.length || n.some((m) => m.amountLike)) && nums.some((n) => n.some((m) => m.amountLike)) ? 'money' : 'number';
  };

  /**
   * The pieces of the item table: the best table, then the tables that continue it — the same columns
   * under a repeated header, or (no header of their own) columns lining up with it right below it or at
   * the top of a later page, with their columns mapped onto the item table's by position.
   */
  type Piece = { ti: number; heads: number; map: number[][] | null };
  const sig = (p: Plan) => [...p.assign.entries()].map(([k, c]) => `${k}:${c.col}:${c.header.toLowerCase()}`).sort().join('|');
  const pieces: Piece[] = [{ ti: best.ti, heads: best.heads, map: null }];
  const bestRanges = columnRanges(bestTable);
  for (let ti = best.ti + 1; ti < doc.tables.length; ti++) {
    const prev = doc.tables[pieces[pieces.length - 1]!.ti]!;
    const t = doc.tables[ti]!;
    const own = plans.find((p) => p.ti === ti);
    if (own && sig(own) === sig(best)) {
      pieces.push({ ti, heads: own.heads, map: null });
      continue;
    }
    if (own || headsOf(ti) > 0 || !index.cellsOf(ti).some((u) => scope.has(u))) break;
    // right below the previous piece, or the first table of the next page
    if (t.page === prev.page) {
      if (!t.bbox || !prev.bbox) break;
      const rowH = prev.bbox.height / Math.max(1, prev.rows);
      const gap = t.bbox.y - (prev.bbox.y + prev.bbox.height);
      if (gap < -2 || gap > Math.max(30, 4 * rowH)) break;
    } else if (t.page !== prev.page + 1 || doc.tables.some((o, oi) => oi < ti && o.page === t.page)) break;
    // without cell boxes only the same number of columns tells that they line up
    const ranges = columnRanges(t);
    const boxed = bestRanges.every(Boolean) && ranges.every(Boolean);
    const map = boxed ? mapByPosition(bestRanges, ranges) : t.cols === bestTable.cols ? Array.from({ length: t.cols }, (_, c) => [c]) : null;
    if (!map) break;
    pieces.push({ ti, heads: 0, map });
  }

  const rows: Record<string, unknown>[] = [];
  let cellsSeen = 0, cellsClean = 0;
  let first: Span | null = null, last: Span | null = null;
  const descKey = props.find((p) => p.def.type === 'string' && itemConcept(p.def)?.id === 'description')?.key;
  const summary = (['total', 'subtotal', 'tax'] as const).map((id) => ({ id, labels: fieldLabels({ name: id, type: 'number' }) }));
  type Piece2 = { text: string; start: number; end: number };
  let ended = false;
  for (const piece of pieces) {
    if (ended) break;
    const table = doc.tables[piece.ti]!;
    const cells = index.cellsOf(piece.ti);
    for (let r = piece.heads; r < table.rows && !ended; r++) {
      const rowCells = cells.filter((u) => u.cell!.row === r).sort((a, b) => a.cell!.col - b.cell!.col);
      if (!rowCells.some((u) => u.text.trim())) continue;
      // the row's text by item column
      const byCol = new Map<number, Piece2>();
      const put = (c: number, v: Piece2) => {
        const had = byCol.get(c);
        byCol.set(c, had ? { text: `${had.text} ${v.text}`, start: had.start, end: v.end } : v);
      };
      for (const u of rowCells) {
        if (!u.text.trim()) continue;
        const targets = piece.map ? piece.map[u.cell!.col] ?? [] : [u.cell!.col];
        if (targets.length <= 1) {
          if (targets.length) put(targets[0]!, { text: u.text, start: u.start, end: u.end });
          continue;
        }
        for (const [c, { a, b }] of splitAcross(u.text, targets, numericCol)) put(c, { text: u.text.slice(a, b), start: u.start + a, end: u.start + b });
      }
      const firstText = [...byCol.entries()].sort((a, b) => a[0] - b[0])[0]?.[1].text ?? '';
      const obj: Record<string, unknown> = {};
      const seen: { v: Piece2; clean: boolean }[] = [];
      let onlyDesc = true, priced = false;
      for (const p of props) {
        const col = best.assign.get(p.key);
        const v = col ? byCol.get(col.col) : undefined;
        const parsed = v ? parseCell(v.text, p.def, ctx) : { value: null, clean: true };
        obj[p.key] = parsed.value;
        if (v?.text.trim()) {
          seen.push({ v, clean: parsed.clean && parsed.value !== null });
          if (p.key !== descKey) onlyDesc = false;
          if (parsed.value !== null && p.key !== descKey && itemConcept(p.def)?.id !== 'line_total') priced = true;
        }
      }
      if (!seen.length) continue;
      // totals rows: a summary label in front; a weaker match counts when the row has no quantity or price
      const sum = summary.map((s) => ({ id: s.id, s: scoreLabelText(firstText, s.labels) })).filter((s) => s.s >= (priced ? 0.8 : 0.6)).sort((a, b) => b.s - a.s)[0];
      if (sum) {
        // a total closes the item list; subtotal and tax rows are stepped over
        if (sum.id === 'total' && rows.length) ended = true;
        continue;
      }
      for (const { v, clean } of seen) {
        cellsSeen++;
        if (clean) cellsClean++;
        first ??= { start: v.start, end: v.end };
        last = { start: v.start, end: v.end };
      }
      // a row with only a description continues the previous item's description
      if (onlyDesc && descKey && rows.length && best.assign.size > 1) {
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
  const more = pieces.length > 1 ? `, continued in ${pieces.length - 1} more table${pieces.length > 2 ? 's' : ''}` : '';
  return {
    value: rows,
    score: best.score * (0.6 + 0.4 * parseRate),
    span: { start: first.start, end: last.end },
    page: bestTable.page,
    note: `table on page ${bestTable.page} (${rows.length} rows; ${headers}${more})`,
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
