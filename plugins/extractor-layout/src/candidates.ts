/**
 * Candidate values of one primitive field (string, number, date, boolean) from the layout: key-value
 * blocks, "Label: value" / "Label   value" / "Label value" in lines and cells, value right of or below a
 * label (boxes, else character columns, else reading order), table column and row headers, and a few
 * unlabelled fallbacks (first company-like line, the document's currency, formatted values like e-mails).
 */
import type { FieldDefinition, Span } from '@quire/core';
import { coverage, scanTyped, tokenize, type ParseContext, type TypedMatch } from '@quire/fields';
import { findLabels, regionScore, scoreLabelText, type FieldLabels } from './labels.js';
import type { LayoutIndex, Scope, Segment, Unit } from './layout.js';
import { headerRowCount } from './layout.js';
import { datesOf } from './dates.js';

export type Method = 'key_value' | 'inline' | 'inline_gap' | 'inline_space' | 'right' | 'below' | 'next_line' | 'table_column' | 'table_row' | 'checkbox' | 'header' | 'position' | 'document';

/** How much a way of finding a value is trusted, before label and parse quality. */
export const METHOD_FACTOR: Record<Method, number> = {
  key_value: 1,
  inline: 0.97,
  checkbox: 0.95,
  table_row: 0.94,
  table_column: 0.94,
  inline_gap: 0.94,
  right: 0.92,
  below: 0.88,
  inline_space: 0.85,
  next_line: 0.8,
  /** the issuer's name line at the top of the first page (see issuer.ts) */
  header: 0.9,
  document: 0.6,
  position: 0.5,
};

export interface Candidate {
  value: unknown;
  /** the value as printed: doc.text.slice(span.start, span.end) */
  span: Span;
  page: number;
  unit: Unit;
  method: Method;
  labelScore: number;
  parseQuality: number;
  score: number;
  label?: Span;
  note: string;
}

export interface CandidateOptions {
  /** restrict label sites to these units (agentic per-region extraction); default the whole document */
  scope?: Scope;
  ctx: ParseContext;
  multiline?: boolean;
}

const MIN_LABEL = 0.35;
/** "Word(s):" starting another label inside a value region */
const NEXT_LABEL = /\s(?=[\p{L}][\p{L}\p{N} .#/()-]{0,30}:(?:\s|$))/u;

const isHeaderish = (segs: Segment[]) => segs.length >= 2 && segs.every((s) => !/\d/.test(s.text) && tokenize(s.text).length <= 4);

export class CandidateFinder {
  constructor(readonly index: LayoutIndex) {}

  find(field: FieldDefinition, labels: FieldLabels, opts: CandidateOptions): Candidate[] {
    const out: Candidate[] = [];
    const scope = opts.scope ?? this.index.all;
    for (const u of scope.units) {
      if (u.blockType === 'key_value' && u.line === 0) this.fromKeyValue(u, field, labels, opts, out);
      this.fromLabels(u, field, labels, opts, out);
    }
    this.fromTables(field, labels, opts, scope, out);
    return out;
  }

  candidate(u: Unit, m: TypedMatch, span: Span, region: string, method: Method, labelScore: number, note: string, label?: Span): Candidate {
    const cov = coverage(region, { start: m.start, end: m.end });
    // a "value" running on for a whole paragraph is more likely a misread layout than a field value
    const long = typeof m.value === 'string' && m.value.length > 80 ? 0.7 : 1;
    const parseQuality = m.quality * (0.75 + 0.25 * cov) * long;
    const ocr = 0.7 + 0.3 * this.index.confidenceOf(span, u.confidence);
    return { value: m.value, span, page: u.page, unit: u, method, labelScore, parseQuality, score: labelScore * METHOD_FACTOR[method] * parseQuality * ocr, label, note };
  }

  /** Best typed match in a region; money fields skip percentages and prefer amounts. */
  pick(text: string, field: FieldDefinition, ctx: ParseContext): TypedMatch | undefined {
    let found = field.type === 'date' ? datesOf(text, ctx) : scanTyped(text, field.type, ctx);
    if (ctx.money) {
      found = found.filter((m) => !m.percent);
      const amounts = found.filter((m) => m.amountLike);
      if (amounts.length) found = amounts;
    }
    return found[0];
  }

  private fromKeyValue(u: Unit, field: FieldDefinition, labels: FieldLabels, opts: CandidateOptions, out: Candidate[]): void {
    const b = this.index.doc.blocks[u.block]!;
    if (!b.key || !b.value) return;
    const ls = scoreLabelText(b.key, labels);
    if (ls < MIN_LABEL) return;
    const text = this.index.doc.text;
    const vAt = text.lastIndexOf(b.value.trim(), b.span.end);
    if (vAt < b.span.start) return;
    const region = b.value.trim();
    const m = this.pick(region, field, opts.ctx);
    if (!m) return;
    const kAt = text.indexOf(b.key.trim(), b.span.start);
    const label = kAt >= 0 && kAt < b.span.end ? { start: kAt, end: kAt + b.key.trim().length } : undefined;
    const c = this.candidate(u, m, { start: vAt + m.start, end: vAt + m.end }, region, 'key_value', ls, `key-value "${b.key.trim()}"`, label);
    out.push(c);
  }

  private fromLabels(u: Unit, field: FieldDefinition, labels: FieldLabels, opts: CandidateOptions, out: Candidate[]): void {
    const tokens = this.index.tokensOf(u);
    const hits = findLabels(tokens, labels);
    if (!hits.length) return;
    const segs = this.index.segments(u);
    const headerish = isHeaderish(segs);
    for (const hit of hits) {
      const labStart = u.start + tokens[hit.from]!.start;
      let labEnd = u.start + tokens[hit.to - 1]!.end;
      const seg = segs.find((s) => s.start <= labStart && labEnd <= s.end);
      if (!seg) continue;
      // the printed label: from the segment start to the colon when one follows closely, else up to where
      // a value can start (words glued to the label, "Total Tax 0.00", belong to the label)
      const after = this.index.doc.text.slice(labEnd, seg.end);
      const colon = /^([^:：]{0,16})[:：]/.exec(after);
      let regionEnd = labEnd;
      if (colon) regionEnd = labEnd + colon[1]!.length;
      else if (field.type !== 'string') {
        const v = /[\d$€£¥₹(☐☒☑✓✔✗✘\[]/u.exec(after);
        regionEnd = v ? labEnd + v.index : seg.end;
      }
      const inSeg = (end: number) => tokens.filter((t) => u.start + t.start >= seg.start && u.start + t.end <= end);
      const ls = regionScore(hit, inSeg(regionEnd), labels);
      // a label with nothing after it in its column is the whole column text ("Invoice Date" is not "Invoice")
      const lsAlone = colon ? ls : regionScore(hit, inSeg(seg.end), labels);
      const fuzzy = hit.score < hit.variant.weight;
      if (Math.max(ls, lsAlone) < MIN_LABEL) continue;
      if (colon) labEnd += colon[0].length;
      else labEnd += /^[\s#.=\-–>]*/.exec(after)![0].length;
      const label = { start: u.start + tokens[hit.from]!.start, end: labEnd };
      const note = `label "${this.index.doc.text.slice(label.start, u.start + tokens[hit.to - 1]!.end)}"`;
      if (field.type === 'boolean' && ls >= MIN_LABEL && this.checkbox(u, label, ls, note, opts, out)) continue;
      // a fuzzy (OCR-damaged) label counts only with a colon or a column gap after it
      const found = headerish || ls < MIN_LABEL ? false : this.sameLine(u, segs, seg, labEnd, !!colon, fuzzy, field, ls, label, note, opts, out);
      if (found) continue;
      if (lsAlone < MIN_LABEL) continue;
      const restOfLine = this.index.doc.text.slice(labEnd, u.end).trim();
      if (u.kind === 'cell') continue; // table neighbours come from fromTables
      // "Label: value" whose value did not read as the type has no other value; "Label: Other label:" may
      const rest = this.index.doc.text.slice(labEnd, u.end).trim();
      if (colon && rest && !/[:：]$/.test(rest) && !headerish) continue;
      if (restOfLine && !headerish && field.type === 'string' && !opts.ctx.format) continue;
      this.beside(u, seg, field, lsAlone, label, note, opts, out);
    }
  }

  /** Checkbox glyph right before or after a label: "☒ Paid", "Paid [x]". */
  private checkbox(u: Unit, label: Span, ls: number, note: string, opts: CandidateOptions, out: Candidate[]): boolean {
    const text = this.index.doc.text;
    const before = text.slice(Math.max(u.start, label.start - 4), label.start);
    const afterText = text.slice(label.end, Math.min(u.end, label.end + 6));
    for (const [region, base] of [[before, Math.max(u.start, label.start - 4)], [afterText, label.end]] as const) {
      const m = scanTyped(region, 'boolean', opts.ctx).find((x) => /[^\p{L}]/u.test(region.slice(x.start, x.end)));
      if (m) {
        out.push(this.candidate(u, m, { start: base + m.start, end: base + m.end }, region.slice(m.start, m.end), 'checkbox', ls, `${note} with a checkbox`, label));
        return true;
      }
    }
    return false;
  }

  /** Value after the label on the same printed line: after a colon, after a column gap, or after a space. */
  private sameLine(u: Unit, segs: Segment[], seg: Segment, labEnd: number, colon: boolean, fuzzy: boolean, field: FieldDefinition, ls: number, label: Span, note: string, opts: CandidateOptions, out: Candidate[]): boolean {
    const text = this.index.doc.text;
    const pieces: { start: number; end: number; gap: boolean }[] = [];
    if (labEnd < seg.end) pieces.push({ start: labEnd, end: seg.end, gap: false });
    for (const s of segs) if (s.start > seg.start && s.start >= labEnd) pieces.push({ start: s.start, end: s.end, gap: true });
    for (const [i, p] of pieces.slice(0, 3).entries()) {
      if (field.type === 'string') {
        const paren = /^\s*\((?=[^)]*\p{L})[^)]{0,80}\)\s*/u.exec(text.slice(p.start, p.end));
        if (paren && paren[0].length < p.end - p.start) p.start += paren[0].length;
      }
      let region = text.slice(p.start, p.end);
      const next = NEXT_LABEL.exec(region);
      if (next && next.index > 0) region = region.slice(0, next.index);
      // another field's label sitting in this column ("Check Out" after "Check In") is not a value
      if (p.gap && !/\d/.test(region) && /:\s*$/.test(region)) break;
      if (!region.trim()) continue;
      const m = this.pick(region, field, opts.ctx);
      if (!m) {
        if (field.type === 'string') break;
        continue;
      }
      const method: Method = colon ? 'inline' : p.gap || i > 0 ? 'inline_gap' : 'inline_space';
      if (method === 'inline_space' && fuzzy) return false;
      let c = this.candidate(u, m, { start: p.start + m.start, end: p.start + m.end }, region, method, ls, note, label);
      if (opts.multiline) c = this.extendLines(c, field);
      out.push(c);
      return true;
    }
    return false;
  }

  /** Value right of the label (another unit on the same row) or below it (label above value). */
  private beside(u: Unit, seg: Segment, field: FieldDefinition, ls: number, label: Span, note: string, opts: CandidateOptions, out: Candidate[]): void {
    const tries: { seg: Segment; method: Method }[] = [];
    const units = this.index.unitsOnPage(u.page).filter((v) => v.id !== u.id && v.kind === u.kind && !(v.cell && u.cell && v.cell.table !== u.cell.table));
    if (u.bbox && u.bboxSource !== 'estimate') {
      const right = units
        .filter((v) => v.bbox && v.bbox.x >= seg.x1 - 2 && vOverlap(u.bbox!, v.bbox) >= 0.5)
        .sort((a, b) => a.bbox!.x - b.bbox!.x)[0];
      if (right) tries.push({ seg: this.index.segments(right)[0]!, method: 'right' });
    }
    // below: the nearest segment under the label that overlaps it horizontally
    const lineH = u.bbox ? u.bbox.height : 1;
    let best: { s: Segment; d: number } | undefined;
    for (const v of units) {
      const dy = u.bbox && v.bbox ? v.bbox.y - (u.bbox.y + u.bbox.height) : v.id > u.id && v.block === u.block ? v.line - u.line - 1 : v.id === u.id + 1 ? 0 : Infinity;
      if (!(dy >= -lineH * 0.3) || dy > (u.bbox && v.bbox ? Math.max(3 * lineH, 30) : 1)) continue;
      for (const s of this.index.segments(v)) {
        // a remark in parentheses under a label ("(Not to be used for payment)") is not its value
        if (field.type === 'string' && /^\(.*\)$/.test(s.text)) continue;
        const comparable = (u.bbox && v.bbox) || (!u.bbox && !v.bbox);
        if (!comparable) continue;
        const ov = Math.min(s.x1, seg.x1) - Math.max(s.x0, seg.x0);
        const leftAligned = Math.abs(s.x0 - seg.x0) <= (u.bbox ? 6 : 2);
        if (ov <= 0 && !leftAligned) continue;
        if (!best || dy < best.d || (dy === best.d && ov > 0)) best = { s, d: dy };
      }
    }
    if (best) tries.push({ seg: best.s, method: u.bbox || best.s.unit.block === u.block ? 'below' : 'next_line' });
    if (!best && !u.bbox) {
      const next = this.index.nextUnits(u, 1)[0];
      if (next) tries.push({ seg: this.index.segments(next)[0]!, method: 'next_line' });
    }
    for (const t of tries) {
      if (!t.seg) continue;
      // a value cell that is itself a label for something else is not a value
      if (field.type === 'string' && !opts.ctx.format && /:\s*$/.test(t.seg.text)) continue;
      const m = this.pick(t.seg.text, field, opts.ctx);
      if (!m) continue;
      const v = t.seg.unit;
      const region = t.seg.text;
      const span = { start: t.seg.start + m.start, end: t.seg.start + m.end };
      let c = this.candidate(v, m, span, region, t.method, ls, `${note} ${t.method === 'right' ? 'with the value to its right' : 'with the value below'}`, label);
      if (opts.multiline) c = this.extendLines(c, field);
      out.push(c);
      return;
    }
  }

  /** Addresses and similar values continue on the following short lines of the same block (joined with a space, as a line break reads). */
  extendLines(c: Candidate, field: FieldDefinition): Candidate {
    if (field.type !== 'string') return c;
    let end = c.span.end;
    let value = String(c.value);
    let u = c.unit;
    for (let i = 0; i < 4; i++) {
      const next = this.index.units[u.id + 1];
      if (!next || next.block !== u.block || next.kind !== 'line') break;
      const t = next.text.trim();
      if (!t || /[:：]/.test(t) || t.length > 80 || tokenize(t).length > 10) break;
      if (/\b(tel|phone|fax|e-?mail|gst|vat|date|invoice|www\.)/i.test(t)) break;
      value += ` ${t}`;
      end = next.end;
      u = next;
    }
    if (end === c.span.end) return c;
    return { ...c, value, span: { start: c.span.start, end }, note: `${c.note} (continued on the next lines)` };
  }

  private fromTables(field: FieldDefinition, labels: FieldLabels, opts: CandidateOptions, scope: Scope, out: Candidate[]): void {
    const doc = this.index.doc;
    const tables = new Set(scope.units.filter((u) => u.cell).map((u) => u.cell!.table));
    doc.tables.forEach((table, ti) => {
      if (!tables.has(ti)) return;
      const cells = this.index.cellsOf(ti);
      if (!cells.length) return;
      const at = (r: number, c: number) => cells.find((u) => u.cell!.row === r && u.cell!.col === c);
      const heads = Math.max(1, headerRowCount(table));
      const bodyRows = table.rows - heads;
      // column header → the value in the single body row under it
      for (let c = 0; c < table.cols; c++) {
        const h = at(heads - 1, c);
        if (!h) continue;
        const ls = scoreLabelText(h.text, labels);
        if (ls < 0.5 || bodyRows < 1 || bodyRows > 2) continue;
        for (let r = heads; r < table.rows; r++) {
          const v = at(r, c);
          if (!v) continue;
          const m = this.pick(v.text, field, opts.ctx);
          if (!m) continue;
          out.push(this.candidate(v, m, { start: v.start + m.start, end: v.start + m.end }, v.text, 'table_column', ls * (bodyRows === 1 ? 1 : 0.85), `table column "${h.text}"`, { start: h.start, end: h.end }));
          break;
        }
      }
      // row header → the first cell to its right that reads as the type (rows flagged as headers are not data)
      for (let r = headerRowCount(table); r < table.rows; r++) {
        for (let c = 0; c < table.cols - 1; c++) {
          const h = at(r, c);
          if (!h || (/\d/.test(h.text) && field.type !== 'string')) continue;
          const ls = scoreLabelText(h.text, labels);
          if (ls < 0.5) continue;
          for (let c2 = c + 1; c2 < table.cols; c2++) {
            const v = at(r, c2);
            if (!v) continue;
            const m = this.pick(v.text, field, opts.ctx);
            if (!m) continue;
            out.push(this.candidate(v, m, { start: v.start + m.start, end: v.start + m.end }, v.text, 'table_row', ls, `table row "${h.text}"`, { start: h.start, end: h.end }));
            break;
          }
          break;
        }
      }
    });
  }
}

function vOverlap(a: { y: number; height: number }, b: { y: number; height: number }): number {
  const ov = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return ov / Math.max(1e-6, Math.min(a.height, b.height));
}
