/**
 * The issuer of a document printed without a label: the top-most prominent line of the first page that is a
 * name rather than an address, a phone number, a registration number, a title or OCR noise. Evidence for a
 * line: a legal form (Sdn Bhd, GmbH, Ltd, Inc, LLC, S/B, …) or a trade word (Enterprise, Trading, Store,
 * Restaurant, …), a clean OCR reading (word confidences, real words), its height against the page's usual
 * line height, and how near the top it is. Registration numbers ("(123456-A)") and what follows them are cut
 * off; a bare legal form on its own line ("CO. (M) SDN BHD") joins the name line next to it.
 */
import type { Span } from '@quire/core';
import type { LayoutIndex, Scope, Unit } from './layout.js';
import type { Candidate } from './candidates.js';
import { LEXICON, tokenize, words } from '@quire/fields';
import { tokenSimilarity } from './labels.js';

const LEGAL = /(?<![\p{L}])(sdn\.?\s*bhd\.?|bhd\.?|berhad|s\/b|plt|gmbh|ltd\.?|limited|inc\.?|incorporated|llc|l\.l\.c\.|plc|corp\.?|corporation|pte\.?|pty\.?|llp|b\.\s?v\.?|n\.\s?v\.?|s\.a\.?|s\.r\.l\.|ag|kg|oy|ab|co\.)(?:(?<=\.)|(?![\p{L}]))/iu;
const TRADE = /(?<![\p{L}])(enterprises?|trading|traders?|stores?|shop|restaurants?|restoran|cafe|caf[ée]|hardware|pharmacy|farmasi|mart|market|supermarket|minimarket|bakery|confectionery|kedai|syarikat|perniagaan|centre|center|florist|stationery|books?|food|foods|beverages?|holdings|industries|services|group|company|motors?|electrical|hotel|station|kitchen|snacks?|gift|deco|boutique|clinic|studio|printing|auto|garage|bistro|bar|grill|pizza|coffee|tea|house|outlet|mall)(?![\p{L}])/iu;
const ADDRESS = /(?<![\p{L}])(no\.?\s?\d|lot\b|jalan|jln|taman|tmn|lorong|persiaran|lebuh|kawasan|seksyen|section|bandar|street|st\.|road|rd\.|avenue|ave\.|blvd|boulevard|lane|floor|flr|level|block|blk|suite|unit\b|strasse|straße|str\.|weg|rue|via|calle|p\.?o\.? box)(?![\p{L}])|\b\d{5}\b|,.*,/iu;
const CONTACT = /(?<![\p{L}])(tel|fax|phone|telephone|mobile|hp|e-?mail|www|http|website)(?![\p{L}])|@|\.com\b/iu;
const REGISTRATION = /(?<![\p{L}])(gst|vat|reg|registration|co\.?\s*no|company\s+no|brn|tin|ssm|sst|business\s+no|abn|ein)(?![\p{L}])/iu;
const TITLE = /^[\W\d]*(simplified\s+)?(tax\s+)?(invoice|receipt|bill|cash\s+bill|official\s+receipt|statement|quotation|order|delivery\s+order|factuur|rechnung|facture|factura|fattura|quittung|kassenbon|credit\s+note|pro\s*forma)\b/iu;
const DATEISH = /\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}|\d{1,2}:\d{2}/;

/** Where the name part of a line ends: a registration number in parentheses, a registration or contact label, an address after a name. */
function namePart(text: string): { start: number; end: number } | null {
  let end = text.length;
  const cut = (re: RegExp) => {
    const m = re.exec(text);
    if (m && m.index < end) end = m.index;
  };
  cut(/[([{]\s*(?:co\.?\s*(?:reg|no)|reg)[^)]*[)\]}]?|[([{](?=[^\s)\]}]*\d[^\s)\]}]*\d[^\s)\]}]*\d)[^)\]}]*[)\]}]?/iu);
  // a registration number printed bare after the name ("273500-U", "1000131-K")
  cut(/\s\d{4,}-?[A-Z]\b/u);
  cut(/(?<![\p{L}])(?:co\.?\s*reg|company\s+reg|reg\.?\s*no|gst|tel|fax|phone)(?![\p{L}])/iu);
  cut(/\s(?:no\.?\s?\d|lot\s|jalan\s|jln\s)/iu);
  cut(/[,;]\s*$/);
  // the name ends with its legal form (a block whose lines were run together: "Coolblue B.V.Weena 664")
  const legal = new RegExp(LEGAL.source, 'giu');
  for (const m of text.slice(0, end).matchAll(legal)) {
    const after = text.slice(m.index! + m[0].length, end);
    if (/^\p{L}/u.test(after) && !/\.$/.test(m[0])) continue;
    if (/^\s*(?:\(|sdn|bhd|berhad)/iu.test(after)) continue;
    if (m[0].toLowerCase() === 'co.' && /^\s*\S/.test(after)) continue;
    end = m.index! + m[0].length;
    break;
  }
  const raw = text.slice(0, end);
  const lead = raw.length - raw.replace(/^[\s\-–—~*•|'"“”‘’`.,:;]+/u, '').length;
  const t = raw.slice(lead).replace(/[\s\-–—~*•|,:;]+$/u, '');
  if (!t) return null;
  return { start: lead, end: lead + t.length };
}

/** A line that is nothing but a legal form or a trade word ("SDN BHD", "CO. (M) SDN BHD", "(JOHOR) SDN BHD", "TRADING"). */
function bareLegal(text: string): boolean {
  const rest = text.replace(/\([^)]*\)/g, ' ').replace(new RegExp(LEGAL.source, 'giu'), ' ').replace(new RegExp(TRADE.source, 'giu'), ' ').replace(/\b(son|5dn|sdn|bhd|bhn|bho|bad|3hd)\b/gi, ' ').replace(/[^\p{L}\d]+/gu, '');
  return (LEGAL.test(text) || TRADE.test(text)) && rest.length === 0 && text.trim().split(/\s+/).length <= 4;
}

/** OCR misreadings of the Malaysian legal forms, which recur ("SON BHD", "SDN 3HD", "SDN BHO"). */
export function fixLegalForm(name: string): string {
  return name.replace(/(?<=\s)[S5$§]\/[B8][\dB8]?(?=[\s.,]|$)/gu, 'S/B').replace(/(?<![\p{L}\d])([S5][DO0][NM])(\.?\s*)([B3][HN][DO0])(?![\p{L}\d])/giu, (m, a: string, sp: string, b: string) => {
    const upper = a === a.toUpperCase();
    return `${upper ? 'SDN' : 'Sdn'}${sp}${upper ? 'BHD' : 'Bhd'}`;
  });
}

/** Share of a line's words that read as words (letters with a vowel, or a short capitalised abbreviation), not OCR noise. */
function wordiness(text: string): number {
  const toks = text.match(/[\p{L}\d&'’.\/-]+/gu) ?? [];
  if (!toks.length) return 0;
  let good = 0;
  for (const t of toks) {
    const letters = t.replace(/[^\p{L}]/gu, '');
    if (letters.length >= 3 && /[aeiouy]/i.test(letters) && !/\p{L}\d|\d\p{L}/u.test(t)) good++;
    else if (letters.length >= 1 && letters.length <= 3 && letters === letters.toUpperCase() && /^[\p{L}.&\/]+$/u.test(t)) good += 0.7;
    else if (/^\d{1,4}$/.test(t)) good += 0.5;
    else if (t === '&') good++;
  }
  return good / toks.length;
}

interface Line {
  units: Unit[];
  text: string;
  start: number;
  end: number;
  y: number;
  height: number;
  confidence: number;
}

/** Visual lines of the top of the first page, from the top, units on one row joined left to right. */
function headerLines(index: LayoutIndex, scope: Scope): Line[] {
  const lines = scope.units.filter((u) => u.kind === 'line');
  const page = lines[0]?.page;
  if (page === undefined) return [];
  const first = lines.filter((u) => u.page === page);
  const boxed = first.every((u) => u.bbox);
  const height = index.doc.pages.find((p) => p.number === page)?.height ?? 0;
  const ordered = boxed ? [...first].sort((a, b) => a.bbox!.y - b.bbox!.y || a.bbox!.x - b.bbox!.x) : first;
  const top = boxed && height ? ordered.filter((u) => u.bbox!.y < height * 0.45) : ordered.slice(0, 14);
  const out: Line[] = [];
  for (const u of top.slice(0, 16)) {
    const prev = out[out.length - 1];
    const b = u.bbox;
    if (prev && b && prev.units[0]!.bbox) {
      const pb = prev.units[0]!.bbox!;
      const ov = Math.min(pb.y + pb.height, b.y + b.height) - Math.max(pb.y, b.y);
      if (ov > 0.6 * Math.min(pb.height, b.height) && u.block === prev.units[0]!.block) {
        prev.units.push(u);
        prev.units.sort((p, q) => p.bbox!.x - q.bbox!.x);
        continue;
      }
    }
    out.push({ units: [u], text: '', start: 0, end: 0, y: b?.y ?? u.id, height: b?.height ?? 1, confidence: u.confidence });
  }
  for (const l of out) {
    l.text = l.units.map((u) => u.text).join(' ');
    l.start = Math.min(...l.units.map((u) => u.start));
    l.end = Math.max(...l.units.map((u) => u.end));
    l.height = Math.max(...l.units.map((u) => u.bbox?.height ?? 1));
    l.confidence = l.units.reduce((a, u) => a + u.confidence * u.text.length, 0) / Math.max(1, l.units.reduce((a, u) => a + u.text.length, 0));
  }
  return out;
}

/** Issuer name candidates, best first (at most three, so that a close second lowers the confidence). */
export function issuerCandidates(index: LayoutIndex, scope: Scope): Candidate[] {
  const lines = headerLines(index, scope);
  if (!lines.length) return [];
  const heights = lines.map((l) => l.height).sort((a, b) => a - b);
  const medianH = heights[Math.floor(heights.length / 2)]!;
  const scored: { line: Line; part: { start: number; end: number }; score: number; note: string; rank: number }[] = [];
  let rank = 0;
  let legalRank = 0;
  // the registered company behind the shop ("Owned by … Sdn Bhd", or the label alone with the name below) is never the issuer
  const owned = new Set<Line>();
  lines.forEach((line, i) => {
    const at = ownerLabelEnd(line.text);
    if (at < 0) return;
    owned.add(line);
    if (!/[\p{L}]{2,}/u.test(line.text.slice(at)) && lines[i + 1]) owned.add(lines[i + 1]!);
  });
  lines.forEach((line, i) => {
    const t = line.text;
    if (TITLE.test(t) || owned.has(line)) return;
    const part = namePart(t);
    if (!part) return;
    const name = t.slice(part.start, part.end);
    // a labelled line ("Date: …", "Cashier: …"), a date or time, contact details are not a name
    if (DATEISH.test(name) || CONTACT.test(name) || /[:：]/.test(name)) return;
    const letters = name.replace(/[^\p{L}]/gu, '').length;
    if (letters < 3 || letters / name.replace(/\s/g, '').length < (LEGAL.test(fixLegalForm(name)) ? 0.45 : 0.6)) return;
    if (REGISTRATION.test(name) && !LEGAL.test(name)) return;
    // an address is not a name unless the name sits before it on the line (cut off above)
    if (ADDRESS.test(name) && !LEGAL.test(name)) return;
    const words = wordiness(name);
    if (words < 0.5) return;
    let score = 0.45;
    const notes: string[] = [];
    if (LEGAL.test(fixLegalForm(name))) (score += 0.4, notes.push('legal form'));
    else if (TRADE.test(name)) (score += 0.25, notes.push('trade word'));
    const bare = bareLegal(fixLegalForm(name));
    const prominent = medianH > 0 ? Math.min(1.4, line.height / medianH) : 1;
    if (prominent > 1.15) notes.push('large print');
    score *= 0.85 + 0.15 * Math.min(1, prominent);
    score *= 0.55 + 0.45 * words;
    score *= 0.5 + 0.5 * line.confidence;
    // near the top: each plausible line above costs a little. The registered name (a legal form) is the
    // issuer even under a brand or shop name printed above it ("KIKU JAPANESE RESTAURANT" / "TK DIVISION
    // KITCHEN SDN BHD"): for it, only legal-form lines above count in full.
    const legal = LEGAL.test(fixLegalForm(name));
    score *= legal ? Math.pow(0.85, legalRank) * Math.pow(0.95, rank - legalRank) : Math.pow(0.85, rank);
    rank++;
    if (legal) legalRank++;
    scored.push({ line, part, score: Math.min(0.99, score), note: notes.join(', '), rank: i });
    void bare;
  });
  scored.sort((a, b) => b.score - a.score);
  const out: Candidate[] = [];
  for (const s of scored.slice(0, 3)) {
    const { line } = s;
    let start = line.start + s.part.start;
    let end = line.start + s.part.end;
    let value = index.doc.text.slice(start, end);
    if (line.units.length > 1) value = line.text.slice(s.part.start, s.part.end);
    // a bare legal form joins the name line above it; a name line takes a bare legal form below it
    const li = lines.indexOf(line);
    const below = lines[li + 1];
    const above = lines[li - 1];
    if (bareLegal(fixLegalForm(value)) && above && !owned.has(above)) {
      const p = namePart(above.text);
      if (p && !CONTACT.test(above.text) && !TITLE.test(above.text) && wordiness(above.text) >= 0.5) {
        value = `${above.text.slice(p.start, p.end)} ${value}`;
        start = above.start + p.start;
      }
    } else if (below && !owned.has(below) && !LEGAL.test(fixLegalForm(value))) {
      const p = namePart(below.text);
      const tail = p ? below.text.slice(p.start, p.end) : '';
      if (tail && bareLegal(fixLegalForm(tail))) {
        value = `${value} ${tail}`;
        end = below.start + p!.end;
      }
    }
    value = fixLegalForm(value.replace(/\s+/g, ' ').trim());
    const u = line.units[0]!;
    const span: Span = { start, end };
    const ocr = 0.7 + 0.3 * index.confidenceOf({ start: line.start + s.part.start, end: line.start + s.part.end }, u.confidence);
    out.push({ value, span, page: u.page, unit: u, method: 'header', labelScore: s.score, parseQuality: 1, score: s.score * 0.9 * ocr, note: `name line near the top of page ${u.page}${s.note ? ` (${s.note})` : ''}` });
  }
  return out;
}

/** The labels that introduce the registered company behind a shop or brand ("Owned by", "Operated by", "A division of", "Dimiliki oleh"…: the lexicon's legal_entity entry), as tokens. */
const OWNER_LABELS: string[][] = LEXICON.filter((e) => e.concept === 'legal_entity')
  .flatMap((e) => Object.values(e.labels).flat())
  .map((l) => words(l))
  .filter((t) => t.length > 0)
  .sort((a, b) => b.length - a.length);

/** Where an owner label ("Owned by", "(A division of") ends in a line, when the line starts with one (after punctuation; in a label of several words, words of four letters or more within OCR's near misses: "Owncd by"); -1 otherwise. */
export function ownerLabelEnd(text: string): number {
  const toks = tokenize(text);
  if (!toks.length || /[\p{L}\d]/u.test(text.slice(0, toks[0]!.start))) return -1;
  for (const l of OWNER_LABELS) if (l.length <= toks.length && l.every((t, j) => toks[j]!.t === t || (l.length > 1 && tokenSimilarity(toks[j]!.t, t) > 0))) return toks[l.length - 1]!.end;
  return -1;
}

/**
 * The registered company behind a shop or brand, printed under an owner label near the top ("Owned by MAJU
 * HOLDINGS SDN BHD (123456-X)", or the label on its own line and the name on the next): name part only.
 */
export function legalEntityCandidates(index: LayoutIndex, scope: Scope): Candidate[] {
  const lines = headerLines(index, scope);
  const out: Candidate[] = [];
  lines.forEach((line, i) => {
    const at = ownerLabelEnd(line.text);
    if (at < 0) return;
    let host = line;
    let offset = at;
    if (!/[\p{L}]{2,}/u.test(line.text.slice(at))) {
      if (!lines[i + 1]) return;
      host = lines[i + 1]!;
      offset = 0;
    }
    const rest = host.text.slice(offset);
    const part = namePart(rest);
    if (!part) return;
    const name = fixLegalForm(rest.slice(part.start, part.end).replace(/\s+/g, ' ').trim());
    if (name.replace(/[^\p{L}]/gu, '').length < 3) return;
    const u = host.units[0]!;
    const start = host.start + offset + part.start;
    const span: Span = { start, end: host.start + offset + part.end };
    const score = (LEGAL.test(name) ? 0.9 : 0.75) * (0.7 + 0.3 * index.confidenceOf(span, u.confidence));
    out.push({ value: name, span, page: u.page, unit: u, method: 'inline_space', labelScore: score, parseQuality: 1, score, note: `name under an owner label near the top of page ${u.page}` });
  });
  return out;
}
