/**
 * The document total. Every money amount on a line whose label names a total is a candidate; the label's
 * words say which kind of total it is: a grand total (grand total, amount due, balance due, total payable,
 * total incl. tax, rounded total, nett total), a plain "Total", a weaker "Amount" / "Balance", or no total at
 * all (subtotal and amounts excluding tax, the tax itself, a quantity or item count, cash tendered, change,
 * discounts, rounding adjustments). Among the totals the last and largest wins; the receipt's own arithmetic
 * is evidence (tendered − change, subtotal + tax, the same amount under two total labels), and tendered − change
 * stands in for a total OCR lost or misread (changeArithmetic). Labels are read
 * with OCR damage in mind ("Tota!", "TotalGST", "TotaiQty") and amounts split by OCR ("29. 70") are joined.
 */
import type { FieldDefinition, Span } from '@quire/core';
import { lexiconIn, scanTyped, words, type ParseContext } from '@quire/fields';
import { editDistance } from './labels.js';
import type { LayoutIndex, Scope, Unit } from './layout.js';
import { METHOD_FACTOR, type Candidate, type CandidateFinder } from './candidates.js';

/** What a label says an amount is. */
export type AmountKind = 'grand' | 'total' | 'weak' | 'subtotal_incl' | 'subtotal' | 'tax' | 'quantity' | 'tendered' | 'change' | 'discount' | 'rounding' | 'other';

/** How much each kind of label counts as the document total. */
const KIND_WEIGHT: Record<AmountKind, number> = { grand: 1, total: 0.85, weak: 0.55, subtotal_incl: 0.5, subtotal: 0.3, tax: 0, quantity: 0, tendered: 0, change: 0, discount: 0, rounding: 0, other: 0 };

/** How much an amount of this kind counts as the document total (0: not a total). */
export const totalWeight = (k: AmountKind) => KIND_WEIGHT[k];

const near = (t: string, w: string) => t === w || (w.length >= 4 && t.length >= 4 && editDistance(t, w, 1) <= 1);

/** Label words, lower case, with words OCR glued to "total" split off ("TotalGST" → total gst). */
export function labelWords(label: string): string[] {
  const out: string[] = [];
  for (const raw of label.toLowerCase().match(/[\p{L}\p{N}%!|\]]+/gu) ?? []) {
    const t = raw.replace(/[!|\]]/g, 'l');
    if (t.length > 6 && near(t.slice(0, 5), 'total') && !/^totals?$/.test(t)) {
      out.push('total', t.slice(5));
      continue;
    }
    if (/^sub-?total$/.test(t)) {
      out.push('sub', 'total');
      continue;
    }
    out.push(t);
  }
  return out;
}

const has = (ws: string[], ...list: string[]) => ws.some((w) => list.some((l) => near(w, l)));
const hasExact = (ws: string[], ...list: string[]) => ws.some((w) => list.includes(w));

/** The kind of amount a printed label announces. */
export function amountKind(label: string): AmountKind {
  const ws = labelWords(label);
  if (!ws.length) return 'other';
  const total = has(ws, 'total', 'totaal', 'gesamt', 'totale', 'montant');
  const incl = hasExact(ws, 'incl', 'inc', 'inclusive', 'including', 'inklusive', 'inkl', 'ttc') || has(ws, 'inclusive', 'including');
  const tax = hasExact(ws, 'gst', 'tax', 'vat', 'sst', 'btw', 'mwst', 'tva', 'iva', 'ust', 'hst', 'pst') || has(ws, 'service');
  const sub = hasExact(ws, 'sub', 'subtotal', 'netto', 'zwischensumme', 'subtotaal', 'ht') || has(ws, 'subtotal', 'excluding', 'exclusive', 'excluded', 'taxable', 'before') || hasExact(ws, 'excl', 'ex');
  if (hasExact(ws, 'qty', 'oty', 'quantity', 'items', 'item', 'pcs', 'units', 'ty', 'count', 'q') || has(ws, 'quantity', 'items')) return 'quantity';
  if (has(ws, 'change') || (hasExact(ws, 'balance') && has(ws, 'change'))) return 'change';
  // labels of other languages resolve through the lexicon (only where the English words below say nothing)
  const lex = lexiconIn(words(label)).filter((e) => e.concept === 'total' || e.concept === 'subtotal');
  if (has(ws, 'tendered', 'received') || hasExact(ws, 'cash', 'card', 'visa', 'mastercard', 'master', 'debit', 'credit', 'paid', 'payment', 'tender', 'eftpos', 'nets', 'bayar', 'tunai')) {
    // "amount to be paid", "paid amount due" are the total; "cash", "paid" alone are what was tendered
    if (!(hasExact(ws, 'due', 'payable') || (hasExact(ws, 'to') && hasExact(ws, 'be')))) return 'tendered';
    return 'grand';
  }
  if (has(ws, 'discount', 'savings', 'voucher') || hasExact(ws, 'disc', 'less', 'saving')) return 'discount';
  // "Total After Adj", "Total after rounding": the rounded total
  if (total && has(ws, 'after') && (hasExact(ws, 'adj', 'adjustment', 'round') || has(ws, 'rounding', 'adjustment'))) return 'grand';
  if (has(ws, 'rounding') || (hasExact(ws, 'round', 'adj', 'adjustment') && !total)) return total && has(ws, 'rounded') ? 'grand' : 'rounding';
  // "Total includes 6% GST 1.44", "(Total included GST @ 4%: 1.42)": the tax a total holds
  if (tax && has(ws, 'includes', 'included')) return 'tax';
  if (sub || lex.some((e) => e.kind === 'subtotal')) return incl ? 'subtotal_incl' : 'subtotal';
  if (tax && !incl) return 'tax';
  // the final payable amount: after rounding and discounts ("Final Total", "Nett Total", "Rounded Total", "Amount Due", "Te betalen")
  const grand = hasExact(ws, 'grand', 'due', 'payable', 'nett', 'rounded', 'final') || has(ws, 'payable', 'rounded') || (total && incl) || (hasExact(ws, 'to') && hasExact(ws, 'pay', 'paid'));
  if (grand && (total || hasExact(ws, 'amount', 'balance', 'due', 'payable', 'pay', 'paid') || has(ws, 'amount', 'balance'))) return 'grand';
  if (lex.some((e) => e.kind === 'grand')) return 'grand';
  if (total || lex.some((e) => e.kind === 'total')) return 'total';
  if (has(ws, 'amount', 'balance', 'betrag', 'bedrag')) return 'weak';
  return 'other';
}

/** OCR splits of one amount ("29. 70", "14 .65", "RM8 60" after a label) joined, keeping offsets (same length). */
export function joinSplitAmounts(text: string): string {
  // "§" next to digits is OCR's 5 ("§.30", "87.80 §.27")
  text = text.replace(/§(?=[\d.,])|(?<=\d)§/g, '5');
  // a currency-prefixed amount whose decimal point OCR read as a space or lost in an O ("RM8 60", "RM3O 00", "RM 3O.00")
  text = text.replace(/(?<=(?:\b(?:RM|Rp|S\$|A\$|US\$)|[$€£¥])\s?)(\d{1,5})([oO])?(\s)(\d{2})(?![\d.,])/g, (_m, a: string, o: string | undefined, _s: string, b: string) => `${a}${o ? '0' : ''}.${b}`);
  text = text.replace(/(?<=(?:\b(?:RM|Rp|S\$|A\$|US\$)|[$€£¥])\s?\d{1,5})[oO](?=[.,]\d{2}(?![\d.,]))/g, '0');
  return text.replace(/(?<![\d.,])(\d{1,6})(\s?)([.,])(\s)(\d{2})(?![\d.,])|(?<![\d.,])(\d{1,6})(\s)([.,])(\d{2})(?![\d.,])/g, (m) => {
    const digits = m.replace(/\s/g, '');
    return digits + ' '.repeat(m.length - digits.length);
  });
}

interface Found {
  unit: Unit;
  span: Span;
  value: number;
  kind: AmountKind;
  label: string;
  labelSpan?: Span;
  amountLike: boolean;
  repaired: boolean;
  /** order of the line in the document */
  order: number;
  /** other amounts on the same line */
  siblings: number;
  method: Candidate['method'];
  /** computed from other amounts (a total plus its rounding adjustment), not printed */
  derived?: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Labelled amounts of the scope: each money amount with the label printed before it on its line (or in the unit to its left). */
export function labelledAmounts(index: LayoutIndex, ctx: ParseContext, scope: Scope): Found[] {
  const out: Found[] = [];
  const text = index.doc.text;
  // a total label whose amount is printed on the next line ("Total Sales (Inclusive of GST) :" / "29.68")
  let pending: Unit | undefined;
  for (const u of scope.units) {
    const fixed = joinSplitAmounts(u.text);
    const nums = scanTyped(fixed, 'number', { ...ctx, money: true }).filter((m) => !m.percent);
    const above = pending && pending.page === u.page && u.kind === 'line' ? pending : undefined;
    pending = !nums.length && u.kind === 'line' && KIND_WEIGHT[amountKind(u.text)] > 0 ? u : undefined;
    if (!nums.length) continue;
    let prevEnd = 0;
    for (const m of nums) {
      const start = u.start + m.start;
      const end = u.start + m.end;
      let label = fixed.slice(prevEnd, m.start);
      // the label is the text since the last amount; a line starting with an amount has its label to the left or above
      let labelSpan: Span | undefined = label.trim() ? { start: u.start + prevEnd, end: start } : undefined;
      let method: Candidate['method'] = /[:：]\s*[^\p{L}\d]*$/u.test(label) ? 'inline' : 'inline_space';
      if (!/\p{L}{2,}/u.test(label) && m === nums[0]) {
        const left = leftNeighbour(index, u);
        if (!left && above && m.amountLike) {
          label = above.text;
          labelSpan = { start: above.start, end: above.end };
          method = 'below';
        } else if (left) {
          label = left.text;
          labelSpan = { start: left.start, end: left.end };
          method = 'right';
        }
      }
      prevEnd = m.end;
      if (!/\p{L}{2,}/u.test(label)) continue;
      const raw = text.slice(start, end);
      out.push({
        unit: u,
        span: { start, end },
        value: m.value as number,
        kind: amountKind(label),
        label: label.trim(),
        labelSpan,
        amountLike: !!m.amountLike,
        repaired: raw !== fixed.slice(m.start, m.end),
        order: u.id,
        siblings: nums.length - 1,
        method,
      });
    }
  }
  return out;
}

/** The unit just left of u on the same visual row (label and amount in two columns), if any. */
function leftNeighbour(index: LayoutIndex, u: Unit): Unit | undefined {
  if (!u.bbox) return undefined;
  const b = u.bbox;
  let best: Unit | undefined;
  for (const v of index.unitsOnPage(u.page)) {
    if (v === u || !v.bbox || v.kind !== u.kind) continue;
    const ov = Math.min(b.y + b.height, v.bbox.y + v.bbox.height) - Math.max(b.y, v.bbox.y);
    if (ov < 0.5 * Math.min(b.height, v.bbox.height) || v.bbox.x + v.bbox.width > b.x + 2) continue;
    if (!best || v.bbox.x > best.bbox!.x) best = v;
  }
  return best;
}

/** Payment by card (charged the exact total, no change). */
const CARD = /(?<![\p{L}])(card|visa|master\s?card|master|amex|debit|credit|eftpos|nets|maestro|mydebit)(?![\p{L}])/iu;

/** Multiples of 0.05: what a total rounded to the smallest coin of cash payment looks like. */
const onFiveCents = (v: number) => Math.abs(Math.round(v * 20) - v * 20) < 1e-6;

/**
 * The rounded total a receipt prints under its rounding adjustment, when OCR lost that line: the last grand
 * total plus the adjustment (whole cents, at most 0.05) printed after it, with no total below the adjustment.
 * The sign is the one that lands on a multiple of 0.05 (cash rounding), which also covers an adjustment
 * printed without its minus sign.
 */
function roundedTotals(all: Found[]): Found[] {
  const grand = all.filter((f) => f.kind === 'grand' && f.value > 0);
  const last = grand.at(-1);
  if (!last) return [];
  if (onFiveCents(last.value)) return [];
  // the first amount on the adjustment's line that rounds the total ("ROUNDING ADJ ...+.055 0.01" reads two)
  for (const adj of all.filter((f) => f.kind === 'rounding' && f.order > last.order && f.value !== 0 && Math.abs(f.value) <= 0.05 && Number.isInteger(round2(f.value * 100)))) {
    if (all.some((f) => f.order > adj.order && KIND_WEIGHT[f.kind] >= KIND_WEIGHT.total)) return [];
    const value = [last.value + adj.value, last.value - adj.value].map(round2).find(onFiveCents);
    if (value === undefined || value <= 0) continue;
    return [{ ...last, value, kind: 'grand', span: { start: last.span.start, end: adj.span.end }, label: `${last.label} + ${adj.label}`, derived: true }];
  }
  return [];
}

/**
 * Candidates for a total field, scored by the kind of label, position, size and the document's arithmetic;
 * `printed` (the generic finder's candidates under total labels) come back with them, re-weighed when the
 * cash paid less the change is the better reading (see changeArithmetic).
 */
export function totalCandidates(field: FieldDefinition, index: LayoutIndex, finder: CandidateFinder, ctx: ParseContext, scope: Scope, printed: Candidate[] = []): Candidate[] {
  const all = labelledAmounts(index, ctx, scope);
  const own = ownTotalCandidates(field, index, finder, scope, all);
  // an amount read here too is weighed with the whole receipt in view (rounding, summary rows, order): that reading stands
  const read = (c: Candidate) => own.some((o) => o.span.start <= c.span.start && c.span.end <= o.span.end);
  return changeArithmetic(index, scope, all, [...printed.filter((c) => !read(c)), ...own]);
}

function ownTotalCandidates(field: FieldDefinition, index: LayoutIndex, finder: CandidateFinder, scope: Scope, all: Found[]): Candidate[] {
  void field;
  const maxTotal = Math.max(0, ...all.filter((f) => KIND_WEIGHT[f.kind] >= KIND_WEIGHT.total).map((f) => f.value));
  const adjustment = all.find((f) => f.kind === 'rounding' && Math.abs(f.value) < 1);
  // an amount under "Rounding" as large as the totals is the rounded total, not the adjustment (adjustments are cents)
  for (const f of all) if (f.kind === 'rounding' && f.value >= 1 && maxTotal > 0 && Math.abs(f.value - maxTotal) < 0.1) f.kind = 'grand';
  // the total printed next below the rounding adjustment is the rounded total ("Rounding Adj 0.01" / "Total 14.65")
  const next = adjustment && all.find((f) => f.order > adjustment.order && KIND_WEIGHT[f.kind] >= KIND_WEIGHT.weak);
  if (next && (next.kind === 'total' || next.kind === 'weak') && !next.siblings) next.kind = 'grand';
  const rounded = roundedTotals(all);
  all.push(...rounded);
  // a card is charged the exact amount: with no change given, the amount paid by card is a (weak) total
  const noChange = !all.some((f) => f.kind === 'change' && f.value > 0);
  const byCard = noChange ? all.filter((f) => f.kind === 'tendered' && f.amountLike && CARD.test(f.label)) : [];
  const totals = all.filter((f) => KIND_WEIGHT[f.kind] > 0 || byCard.includes(f));
  if (!totals.length) return [];
  const sumOf = (kind: AmountKind) => all.filter((f) => f.kind === kind);
  const tendered = sumOf('tendered').map((f) => f.value);
  const change = sumOf('change').map((f) => f.value);
  const subs = [...sumOf('subtotal'), ...sumOf('subtotal_incl')].map((f) => f.value);
  const taxes = sumOf('tax').map((f) => f.value);
  const roundings = sumOf('rounding').map((f) => f.value);
  const lastOrder = Math.max(...index.units.filter((u) => scope.has(u)).map((u) => u.id));
  const firstOrder = Math.min(...index.units.filter((u) => scope.has(u)).map((u) => u.id));
  const strong = totals.filter((f) => f.kind === 'grand' || f.kind === 'total');
  const maxStrong = strong.length ? Math.max(...strong.map((f) => f.value)) : 0;
  const lastGrand = Math.max(-1, ...totals.filter((f) => f.kind === 'grand').map((f) => f.order));
  const out: Candidate[] = [];
  for (const f of totals) {
    if (f.value <= 0) continue;
    const notes: string[] = [];
    let w = byCard.includes(f) ? KIND_WEIGHT.weak : KIND_WEIGHT[f.kind];
    // the evidence the arithmetic gives: what was tendered less the change, subtotal plus tax, another total label
    let support = 0;
    const eq = (a: number) => Math.abs(round2(a) - f.value) < 0.005;
    if (tendered.some((t) => change.some((c) => c > 0 && eq(t - c)))) (support++, notes.push('tendered − change'));
    else if (!byCard.includes(f) && tendered.some((t) => eq(t)) && (!change.length || change.some((c) => c === 0))) (support++, notes.push('tendered exactly'));
    if (subs.some((s) => taxes.some((t) => t > 0 && (eq(s + t) || roundings.some((r) => eq(s + t + r)))))) (support++, notes.push('subtotal + tax'));
    const twins = all.filter((g) => g !== f && g.value === f.value && (KIND_WEIGHT[g.kind] >= 0.5 || g.kind === 'quantity') && g.unit.id !== f.unit.id);
    if (twins.length) (support++, notes.push(`also under "${twins[0]!.label.slice(0, 30)}"`));
    // a total smaller than another total (a tax-summary row, an earlier line total) is less likely the total
    if ((f.kind === 'total' || f.kind === 'weak') && f.value < maxStrong - 0.005) w *= 0.75;
    // a plain "Total" line holding several amounts is a summary table row
    if (f.siblings > 0) w *= 0.8;
    // a plain total printed above the last grand total is a line or group total
    if (f.kind !== 'grand' && lastGrand > f.order) w *= 0.85;
    // a total the rounded total was computed from is the amount before rounding
    if (rounded.some((r) => r.unit.id === f.unit.id && r !== f)) w *= 0.8;
    // so is a grand total with its cash-rounded amount (a multiple of 0.05, a few cents off) printed as a grand total below it
    if (f.kind === 'grand' && !f.derived && !onFiveCents(f.value) && totals.some((g) => g.kind === 'grand' && g.order > f.order && onFiveCents(g.value) && Math.abs(g.value - f.value) < 0.1)) w *= 0.8;
    const q = (f.amountLike ? 1 : 0.7) * (f.repaired || f.derived ? 0.9 : 1);
    // nearer the end is where totals are printed
    const pos = lastOrder > firstOrder ? 0.85 + 0.15 * ((f.order - firstOrder) / (lastOrder - firstOrder)) : 1;
    const boost = 1 + 0.12 * Math.min(2, support);
    const labelScore = Math.min(1, w * boost);
    const parseQuality = q * pos;
    const ocr = 0.7 + 0.3 * index.confidenceOf(f.span, f.unit.confidence);
    const score = Math.min(0.99, labelScore * Math.sqrt(METHOD_FACTOR[f.method]) * parseQuality * ocr);
    out.push({
      value: f.value,
      span: f.span,
      page: f.unit.page,
      unit: f.unit,
      method: f.method,
      labelScore,
      parseQuality,
      score,
      label: f.labelSpan,
      note: `${f.derived ? 'total plus rounding, ' : ''}${byCard.includes(f) ? 'paid by card, ' : ''}${f.kind === 'grand' ? 'grand total' : f.kind === 'total' ? 'total' : f.kind.replace('_', ' ')} label "${f.label.slice(0, 40)}"${notes.length ? `; checked by ${notes.join(', ')}` : ''}`,
    });
  }
  void finder;
  return out;
}

/** Whether a value is what the receipt's own arithmetic gives: subtotal + tax (± rounding), or the same amount under a total label elsewhere. */
function arithmeticOf(all: Found[], value: number, at?: Unit): string | undefined {
  const eq = (a: number) => Math.abs(round2(a) - value) < 0.005;
  const of = (kind: AmountKind) => all.filter((f) => f.kind === kind).map((f) => f.value);
  const subs = [...of('subtotal'), ...of('subtotal_incl')];
  const roundings = of('rounding');
  if (subs.some((s) => of('tax').some((t) => t > 0 && (eq(s + t) || roundings.some((r) => eq(s + t + r)))))) return 'subtotal + tax';
  const twin = all.find((g) => eq(g.value) && g.unit.id !== at?.id && g.kind !== 'tendered' && g.kind !== 'change' && (KIND_WEIGHT[g.kind] >= 0.5 || g.amountLike));
  return twin ? `also printed under "${twin.label.slice(0, 30)}"` : undefined;
}

/**
 * The total as the cash tendered less the change, for receipts whose printed total OCR misread or lost. The
 * last change amount in the second half of the receipt, with a larger tendered amount printed on its line or
 * up to three lines above it, gives tendered − change. It is offered when no total is printed under a total
 * label (only a weak label — "Amount", a subtotal — or none), and it replaces a printed total only when
 * that total is implausible: nothing on the receipt checks it (not tendered − change, not subtotal + tax,
 * not printed twice) and either it exceeds the cash tendered though change was given (the cash covers the
 * total), or the derived amount is itself checked (subtotal + tax, or printed elsewhere on the receipt).
 * Derived, not printed: its score keeps its confidence below 0.8.
 */
function changeArithmetic(index: LayoutIndex, scope: Scope, all: Found[], cands: Candidate[]): Candidate[] {
  const ids = index.units.filter((u) => scope.has(u)).map((u) => u.id);
  if (!ids.length) return cands;
  const first = Math.min(...ids), last = Math.max(...ids);
  const change = all.filter((f) => f.kind === 'change' && f.value > 0 && f.order - first >= 0.5 * (last - first)).at(-1);
  const tendered = change && all.filter((f) => f.kind === 'tendered' && f.span.end <= change.span.start && change.order - f.order <= 3 && f.value > change.value).at(-1);
  if (!change || !tendered) return cands;
  const value = round2(tendered.value - change.value);
  const text = index.doc.text;
  const kindOf = (c: Candidate) => {
    const f = all.find((g) => g.span.start === c.span.start && g.span.end === c.span.end && !g.derived);
    return f ? f.kind : c.label ? amountKind(text.slice(c.label.start, c.label.end)) : 'other';
  };
  const positive = cands.filter((c) => typeof c.value === 'number' && c.value > 0);
  const best = positive.reduce<Candidate | undefined>((a, c) => (!a || c.score > a.score ? c : a), undefined);
  const strong = best && (kindOf(best) === 'grand' || kindOf(best) === 'total');
  if (best && Math.abs((best.value as number) - value) < 0.005) return cands;
  const check = arithmeticOf(all, value, change.unit);
  let why: string;
  let below: number | undefined;
  if (!strong) why = best ? `no total label, only "${kindOf(best).replace('_', ' ')}"` : 'no total printed';
  else {
    const p = best.value as number;
    if (arithmeticOf(all, p, best.unit) || all.some((f) => f.kind === 'tendered' && Math.abs(f.value - p) < 0.005)) return cands;
    const line = (below = check || p > tendered.value + 0.005 ? undefined : lineAmountAbove(index, scope, best.unit, p, value));
    if (p > tendered.value + 0.005) why = `printed total ${p} exceeds the cash tendered`;
    else if (check) why = `printed total ${p} unchecked`;
    else if (line !== undefined) why = `printed total ${p} is less than the amount ${line} printed above it`;
    else return cands;
  }
  const ocr = 0.7 + 0.3 * Math.min(index.confidenceOf(tendered.span, tendered.unit.confidence), index.confidenceOf(change.span, change.unit.confidence));
  const score = (check ? 0.8 : 0.72) * ocr;
  const derived: Candidate = {
    value,
    span: { start: tendered.span.start, end: change.span.end },
    page: change.unit.page,
    unit: change.unit,
    method: 'inline_space',
    labelScore: check ? 0.8 : 0.72,
    parseQuality: ocr,
    score,
    label: tendered.labelSpan,
    note: `tendered − change ("${tendered.label.slice(0, 20)}" ${tendered.value} − "${change.label.slice(0, 20)}" ${change.value}): ${why}${check ? `; checked by ${check}` : ''}`,
  };
  // a printed total found implausible (and any other below the same line amount), and any total of zero, count for less than the derived one
  const implausible = (c: Candidate) => strong && (c.value === best.value || (below !== undefined && (c.value as number) < below));
  return [...cands.map((c) => (typeof c.value === 'number' && c.value <= 0 ? null : implausible(c) ? { ...c, score: c.score * 0.5 } : c)).filter((c): c is Candidate => !!c), derived];
}

/**
 * An amount printed above the total's line that is larger than the printed total yet within tendered − change:
 * a total below one of its own line amounts is misread (OCR dropped a digit), while the cash arithmetic holds it.
 */
function lineAmountAbove(index: LayoutIndex, scope: Scope, at: Unit, printed: number, derived: number): number | undefined {
  for (const u of scope.units) {
    if (u.id >= at.id || u.page !== at.page) continue;
    for (const m of scanTyped(joinSplitAmounts(u.text), 'number', { money: true })) {
      const v = m.value as number;
      if (!m.percent && m.amountLike && v > printed + 0.005 && v <= derived + 0.005) return v;
    }
  }
  return undefined;
}
