/**
 * Line items printed as aligned text without a detected table: a header row whose column titles name the
 * item properties (found across blocks on one visual row), body rows below it cut into the header's
 * columns by position, description-only rows joined to the item above, stopping at a totals row or a
 * wide vertical gap. Works on boxes (points) or, without boxes, on character columns.
 */
import type { FieldDefinition, Span } from '@quire/core';
import { scanTyped, type Concept, type ParseContext } from '@quire/fields';
import { fieldLabels, scoreLabelText, type FieldLabels } from './labels.js';
import type { LayoutIndex, Scope, Segment, Unit } from './layout.js';
import type { ArrayOutcome } from './arrays.js';

interface Row {
  y0: number;
  y1: number;
  segs: Segment[];
}

interface Column {
  x0: number;
  x1: number;
  key?: string;
  score: number;
}

/** Visual rows of a page: units whose vertical middles fall in one band (boxes), or one row per line (no boxes). */
function rowsOf(index: LayoutIndex, units: Unit[]): Row[] {
  const withBox = units.filter((u) => u.bbox);
  if (withBox.length === units.length && units.length) {
    // rows by top edge: a tall block (a wrapped header, a multi-line description) starts its row like the others
    const heights = withBox.map((u) => u.bbox!.height).sort((a, b) => a - b);
    const tol = Math.max(3, 0.6 * heights[Math.floor(heights.length / 4)]!);
    // lines placed by an even split of their block's box go by their middle into a row of measured lines
    const measured = withBox.filter((u) => u.bboxSource !== 'estimate');
    const estimated = withBox.filter((u) => u.bboxSource === 'estimate');
    const sorted = [...measured].sort((a, b) => a.bbox!.y - b.bbox!.y);
    const rows: Row[] = [];
    for (const u of sorted) {
      const b = u.bbox!;
      const row = rows[rows.length - 1];
      if (row && Math.abs(b.y - row.y0) <= tol) {
        row.segs.push(...index.segments(u));
        row.y1 = Math.max(row.y1, b.y + b.height);
      } else rows.push({ y0: b.y, y1: b.y + b.height, segs: [...index.segments(u)] });
    }
    const bands = rows.map((r) => ({ row: r, y0: r.y0, y1: r.y1 }));
    for (const u of estimated.sort((a, b) => a.bbox!.y - b.bbox!.y)) {
      const b = u.bbox!;
      const mid = b.y + b.height / 2;
      const dist = (x: { y0: number; y1: number }) => Math.abs((x.y0 + x.y1) / 2 - mid);
      const home = bands.filter((x) => mid >= x.y0 - 1 && mid <= x.y1 + 1).sort((p, q) => dist(p) - dist(q))[0]?.row ?? rows.find((r) => Math.abs(b.y - r.y0) <= tol);
      if (home) {
        home.segs.push(...index.segments(u));
        home.y1 = Math.max(home.y1, b.y + b.height);
      } else rows.push({ y0: b.y, y1: b.y + b.height, segs: [...index.segments(u)] });
    }
    rows.sort((a, b) => a.y0 - b.y0);
    for (const r of rows) r.segs.sort((a, b) => a.x0 - b.x0);
    return rows;
  }
  if (withBox.length) return [];
  return units.map((u, i) => ({ y0: i, y1: i + 0.9, segs: index.segments(u) }));
}

const overlap = (a: { x0: number; x1: number }, b: { x0: number; x1: number }) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

export function rowsFromLayout(field: FieldDefinition, index: LayoutIndex, ctx: ParseContext, scope: Scope, itemConcept: (p: FieldDefinition) => Concept | undefined): ArrayOutcome | null {
  const props = Object.entries(field.items?.properties ?? {}).map(([k, def]) => ({ key: k, def: { ...def, name: def.name ?? k } }));
  if (props.length < 2) return null;
  const labels = new Map<string, FieldLabels>(props.map((p) => [p.key, fieldLabels(p.def, itemConcept(p.def))]));
  const summary = ['total', 'subtotal', 'tax'].map((id) => fieldLabels({ name: id, type: 'number' }));
  const descKey = props.find((p) => p.def.type === 'string')?.key;
  const items: Record<string, unknown>[] = [];
  let scoreSum = 0, pages = 0, cells = 0, clean = 0;
  let first: Span | null = null, last: Span | null = null, page = 0;

  const pageNumbers = [...new Set(scope.units.map((u) => u.page))].sort((a, b) => a - b);
  for (const pg of pageNumbers) {
    const units = scope.units.filter((u) => u.page === pg && u.kind === 'line');
    const rows = rowsOf(index, units);
    // the header: the row naming the most properties (at least two)
    let best: { i: number; cols: Column[]; score: number } | undefined;
    rows.forEach((row, i) => {
      if (row.segs.length < 2 || row.segs.filter((s) => /\d{2,}/.test(s.text) && !/%/.test(s.text)).length > 1) return;
      const cols: Column[] = row.segs.map((s) => ({ x0: s.x0, x1: s.x1, score: 0 }));
      const pairs: { key: string; c: number; s: number }[] = [];
      for (const p of props) row.segs.forEach((s, c) => {
        const sc = scoreLabelText(s.text, labels.get(p.key)!);
        if (sc >= 0.45) pairs.push({ key: p.key, c, s: sc });
      });
      pairs.sort((a, b) => b.s - a.s);
      const used = new Set<string>();
      let total = 0;
      for (const pr of pairs) {
        if (used.has(pr.key) || cols[pr.c]!.key) continue;
        cols[pr.c]!.key = pr.key;
        cols[pr.c]!.score = pr.s;
        used.add(pr.key);
        total += pr.s;
      }
      if (used.size >= 2 && (!best || total > best.score)) best = { i, cols, score: total };
    });
    if (!best) continue;
    const { cols } = best;
    const assignedScore = best.score / props.length;
    // body rows until a totals row or a gap much wider than the usual line spacing
    const body = rows.slice(best.i + 1);
    const steps = body.slice(1).map((r, i) => r.y0 - body[i]!.y0).filter((d) => d > 0).sort((a, b) => a - b);
    const step = steps.length ? steps[Math.floor(steps.length / 2)]! : 1;
    let prevY = rows[best.i]!.y0;
    let current: Record<string, unknown> | null = null;
    let found = 0;
    const boxes = units.some((u) => u.bbox);
    const descCol = cols.find((c) => c.key === descKey);
    const alignTol = boxes ? Math.max(12, 2 * (rows[best.i]!.y1 - rows[best.i]!.y0)) : 3;
    const centres = cols.map((c) => (c.x0 + c.x1) / 2);
    const numberCol = (ci: number) => props.find((p) => p.key === cols[ci]?.key)?.def.type === 'number';
    const mostUnder = (x: { x0: number; x1: number }) => cols.reduce((bi, c, i) => (overlap(c, x) > (bi < 0 ? 0 : overlap(cols[bi]!, x)) ? i : bi), -1);
    /**
     * A piece printed across two columns with a single space (a quantity right before its description):
     * a number at either end that sits under another, numeric, column is cut off into that column.
     */
    const peel = (sg: Segment): Segment[] => {
      const main = mostUnder(sg);
      const words = [...sg.text.matchAll(/\S+/g)].map((m) => {
        const start = sg.start + m.index!;
        return { start, end: start + m[0].length, text: m[0], ...index.xRange(sg.unit, start, start + m[0].length), unit: sg.unit };
      });
      if (main < 0 || words.length < 2) return [sg];
      const cut = (w: Segment) => {
        const ci = mostUnder(w);
        return ci >= 0 && ci !== main && numberCol(ci) && scanTyped(w.text, 'number').some((m) => m.start === 0 && m.end === w.text.length && !m.percent);
      };
      const head: Segment[] = [], tail: Segment[] = [];
      while (words.length > 1 && cut(words[0]!)) head.push(words.shift()!);
      while (words.length > 1 && cut(words[words.length - 1]!)) tail.unshift(words.pop()!);
      if (!head.length && !tail.length) return [sg];
      const a = words[0]!, z = words[words.length - 1]!;
      return [...head, { start: a.start, end: z.end, text: index.doc.text.slice(a.start, z.end), x0: a.x0, x1: z.x1, unit: sg.unit }, ...tail];
    };
    for (const row of body) {
      if (row.y0 - prevY > Math.max(5 * step, 4 * (row.y1 - row.y0))) break;
      prevY = row.y0;
      if (summary.some((l) => scoreLabelText(row.segs[0]!.text, l) >= 0.8)) break;
      // running text across several columns ends the table
      if (row.segs.some((sg) => centres.filter((c) => c >= sg.x0 && c <= sg.x1).length >= 2 && sg.text.length > 40)) {
        if (found) break;
        continue;
      }
      const values: Record<string, { text: string; seg: Segment }> = {};
      for (const s of row.segs.flatMap(peel)) {
        // the column this piece sits under: most horizontal overlap, else the nearest centre
        let ci = -1, bestOv = 0;
        cols.forEach((c, i) => {
          const ov = overlap(c, s);
          if (ov > bestOv) [ci, bestOv] = [i, ov];
        });
        if (ci < 0) {
          const mid = (s.x0 + s.x1) / 2;
          ci = cols.reduce((bi, c, i) => (Math.abs((c.x0 + c.x1) / 2 - mid) < Math.abs((cols[bi]!.x0 + cols[bi]!.x1) / 2 - mid) ? i : bi), 0);
        }
        const key = cols[ci]!.key;
        if (!key) continue;
        values[key] = values[key] ? { text: `${values[key]!.text} ${s.text}`, seg: values[key]!.seg } : { text: s.text, seg: s };
      }
      const keys = Object.keys(values);
      if (!keys.length) continue;
      const onlyDesc = keys.length === 1 && keys[0] === descKey;
      if (onlyDesc) {
        // a description line under an item, aligned with the description column, continues it; else the table ended
        if (current && descCol && Math.abs(values[descKey!]!.seg.x0 - descCol.x0) > alignTol) break;
        if (current && descKey) current[descKey] = [current[descKey], values[descKey]!.text].filter(Boolean).join('\n');
        if (current && values[descKey!]!.seg.end > last!.end) last = { start: last!.start, end: values[descKey!]!.seg.end };
        continue;
      }
      current = {};
      for (const p of props) {
        const v = values[p.key];
        if (!v) {
          current[p.key] = null;
          continue;
        }
        cells++;
        if (p.def.type === 'string') {
          current[p.key] = v.text;
          clean++;
        } else {
          const found = scanTyped(v.text, p.def.type, ctx).filter((m) => !m.percent);
          current[p.key] = found[0]?.value ?? null;
          if (found.length === 1 && found[0]!.start <= 3) clean++;
        }
        if (!first || v.seg.start < first.start) first = { start: v.seg.start, end: v.seg.end };
        if (!last || v.seg.end > last.end) last = { start: v.seg.start, end: v.seg.end };
      }
      items.push(current);
      found++;
      page ||= pg;
    }
    if (found) {
      scoreSum += assignedScore;
      pages++;
    }
  }
  if (!items.length || !first || !last) return null;
  const parseRate = cells ? clean / cells : 0;
  return {
    value: items,
    // aligned text is weaker evidence of a table than a detected one
    score: (scoreSum / pages) * (0.6 + 0.4 * parseRate) * 0.9,
    span: { start: first.start, end: last.end },
    page,
    note: `${items.length} rows of aligned text under a header row on page ${page}`,
  };
}
