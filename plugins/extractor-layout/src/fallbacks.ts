/**
 * Unlabelled evidence, used only when no label names the field: values whose shape is unmistakable
 * (e-mail, IBAN, URL, BIC, phone), the currency the amounts are printed in, the company-like line at the
 * top of the first page for a vendor, the first date of the document (in a line or a table cell) for a document date.
 * These score low by construction (METHOD_FACTOR 'document' / 'position').
 */
import type { FieldDefinition } from '@quire/core';
import { scanNumbers, scanTyped, tokenize, type ParseContext } from '@quire/fields';
import type { FieldLabels } from './labels.js';
import type { LayoutIndex, Scope, Unit } from './layout.js';
import type { Candidate, CandidateFinder } from './candidates.js';
import { datesOf } from './dates.js';

const ADDRESS = /\b(\d{4,6}|street|st\.|road|rd\.?|avenue|ave\.?|jalan|jln|lane|blvd|boulevard|strasse|straße|str\.|weg|laan|straat|rue|via|calle|lot|no\.\s?\d)/i;
const TITLES = /^(tax\s+)?(invoice|receipt|bill|statement|quote|quotation|order|credit note|factuur|rechnung|facture|factura|fattura|payment receipt|cash receipt|official receipt)\b/i;
const CURRENCY_WORDS: [RegExp, string][] = [
  [/\bUS\s?dollars?\b/i, 'USD'],
  [/\beuros?\b/i, 'EUR'],
  [/\bpounds? sterling\b/i, 'GBP'],
  [/\brupees?\b/i, 'INR'],
  [/\bringgit\b/i, 'MYR'],
  [/\bswiss francs?\b/i, 'CHF'],
];

/** Lines in the top part of the first page: by position when boxes are known, else the first lines in reading order. */
function topLines(index: LayoutIndex, lines: Unit[], fraction: number, min: number): Unit[] {
  const page = lines[0]?.page;
  const first = lines.filter((u) => u.page === page);
  const height = index.doc.pages.find((p) => p.number === page)?.height ?? 0;
  if (height && first.every((u) => u.bbox)) return first.filter((u) => u.bbox!.y < height * fraction).sort((a, b) => a.bbox!.y - b.bbox!.y || a.bbox!.x - b.bbox!.x);
  return first.slice(0, Math.max(min, Math.ceil(first.length * fraction)));
}

export function fallbackCandidates(field: FieldDefinition, labels: FieldLabels, index: LayoutIndex, finder: CandidateFinder, ctx: ParseContext, scope: Scope): Candidate[] {
  const out: Candidate[] = [];
  const lines = scope.units.filter((u) => u.kind === 'line');
  const id = labels.concept?.id;
  if (ctx.format && ['email', 'iban', 'url', 'bic', 'phone'].includes(ctx.format) && field.type === 'string') {
    for (const u of lines) {
      for (const m of scanTyped(u.text, 'string', ctx)) {
        if (ctx.format === 'url' && (u.text[m.start - 1] === '@' || /@/.test(u.text.slice(m.start, m.end)))) continue;
        if (ctx.format === 'phone' && (u.text.slice(m.start, m.end).match(/\d/g)?.length ?? 0) < 7) continue;
        out.push(finder.candidate(u, m, { start: u.start + m.start, end: u.start + m.end }, u.text.slice(m.start, m.end), 'document', 0.8, `${ctx.format} printed on page ${u.page} (no label)`));
      }
    }
    return out;
  }
  if (ctx.format === 'currency' && field.type === 'string') {
    const counts = new Map<string, { n: number; u: Unit; start: number; end: number }>();
    for (const u of scope.units) {
      for (const m of scanNumbers(u.text)) {
        if (!m.currency) continue;
        const e = counts.get(m.currency) ?? { n: 0, u, start: m.start, end: m.end };
        e.n++;
        counts.set(m.currency, e);
      }
      for (const [re, code] of CURRENCY_WORDS) {
        const m = re.exec(u.text);
        if (!m) continue;
        const e = counts.get(code) ?? { n: 0, u, start: m.index, end: m.index + m[0].length };
        e.n += 2;
        counts.set(code, e);
      }
    }
    const all = [...counts.values()].reduce((a, e) => a + e.n, 0);
    for (const [code, e] of counts) {
      // evidence: where the currency is first printed (the symbol or the code in front of an amount)
      const text = e.u.text.slice(e.start, e.end);
      const sym = /^[^\d\s(+-]+/.exec(text.replace(/^[(\-−–+]/, ''))?.[0] ?? text;
      const at = e.u.text.indexOf(sym, e.start);
      const span = { start: e.u.start + at, end: e.u.start + at + sym.length };
      out.push(finder.candidate(e.u, { start: 0, end: sym.length, value: code, quality: 1 }, span, sym, 'document', 0.5 + 0.5 * (e.n / all), `currency of ${e.n} of ${all} amounts`));
    }
    return out;
  }
  if (id === 'vendor' && field.type === 'string') {
    const top = topLines(index, lines, 0.35, 6);
    let legal: { u: Unit; m: { start: number; end: number; value: unknown; quality: number } } | undefined;
    for (const u of top) {
      const m = scanTyped(u.text, 'string', { format: 'company' }).find((x) => x.quality === 1);
      if (m) {
        legal = { u, m };
        break;
      }
    }
    if (legal) {
      const { u, m } = legal;
      out.push(finder.candidate(u, m, { start: u.start + m.start, end: u.start + m.end }, u.text.slice(m.start, m.end), 'position', 0.9, `company name with a legal form near the top of page ${u.page}`));
    }
    const plain = top.find((u) => /\p{L}{2,}/u.test(u.text) && !TITLES.test(u.text.trim()) && tokenize(u.text).length <= 8 && !/[:：@]|\d{3,}/.test(u.text));
    if (plain && plain !== legal?.u) {
      const seg = index.segments(plain)[0]!;
      out.push(finder.candidate(plain, { start: 0, end: seg.text.length, value: seg.text, quality: 1 }, { start: seg.start, end: seg.end }, seg.text, 'position', 0.6, `first line of page ${plain.page}`));
    }
    return out;
  }
  if (id === 'address' && field.type === 'string') {
    // an unlabelled address: the first run of lines near the top that reads like one (street words, postcodes)
    const top = topLines(index, lines, 0.4, 8);
    const start = top.findIndex((u) => ADDRESS.test(u.text) && !/[:：@]/.test(u.text));
    if (start >= 0) {
      const u = top[start]!;
      const c = finder.candidate(u, { start: 0, end: u.text.length, value: u.text, quality: 1 }, { start: u.start, end: u.end }, u.text, 'position', 0.7, `address-like lines near the top of page ${u.page} (no label)`);
      out.push(finder.extendLines(c, field));
    }
    return out;
  }
  if (id === 'date' && field.type === 'date') {
    // lines and table cells in reading order (a receipt read as a table prints its date in a cell)
    for (const u of [...scope.units].sort((a, b) => a.start - b.start)) {
      const m = datesOf(u.text, ctx)[0];
      if (!m) continue;
      out.push(finder.candidate(u, m, { start: u.start + m.start, end: u.start + m.end }, u.text.slice(m.start, m.end), 'position', 0.8, `first date of the document (page ${u.page}, no label)`));
      break;
    }
  }
  return out;
}
