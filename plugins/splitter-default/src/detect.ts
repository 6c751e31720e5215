/**
 * Where one document ends and the next begins in a file of several. Each page p > 1 gets a score for "a new
 * document starts at p" from signals that say so (a title at the top, page numbering that restarts, a
 * change of running header or footer, letterhead, paper size, layout or document type, a shift of topic, a
 * blank separator page, closing words at the end of the page before) and signals that say the opposite (page
 * numbering that continues, the same running header or footer, a sentence that runs on over the page
 * break). Pages whose score reaches the threshold start a section. The weights are round numbers chosen
 * from what each signal means, not fitted to a file: see bench/split.ts for the figures over the corpus.
 */
import { findTitle, notATitle, plausibleTitle } from '@quire/core';
import type { ParsedDocument, SplitDetectOptions, SplitSuggestion } from '@quire/core';
import { pageFeatures, termsOf } from './features.js';
import type { PageFeatures } from './features.js';

export interface Boundary {
  /** the page a new section starts at */
  page: number;
  score: number;
  signals: string[];
  /** similarity of the text across the break (0..1) */
  similarity?: number;
  /** the page continues the one before (CONTINUES): it never starts a section */
  continues?: string[];
}

/** The score of a continuation page: never a boundary, and last when the strongest breaks are picked. */
const CONTINUATION_SCORE = -1;

/**
 * Why `cur` continues `prev` (CONTINUES), if it does: it is numbered "Page x of n" or "x / n" with 1 < x <= n;
 * it repeats a document number of the page before (an invoice's number on its second page); or it has the
 * running head of the page before, printed on pages of one document (not across a blank separator, and not
 * after a page that is a whole document by itself: two receipts of one shop share their top lines).
 */
function continuation(cur: PageFeatures, prev: PageFeatures, blankBefore: boolean, signals: string[]): string[] {
  const out: string[] = [];
  const pn = cur.pageNumber;
  if (pn && pn.of !== null && pn.n > 1 && pn.n <= pn.of && !(prev.pageNumber && prev.pageNumber.of !== null && prev.pageNumber.of !== pn.of)) out.push('page_x_of_n');
  if (cur.documentNumbers.some((d) => prev.documentNumbers.includes(d))) out.push('same_document_number');
  if (!blankBefore && !signals.includes('complete_before') && !cur.ocr && !prev.ocr && cur.heads.some((h) => prev.heads.includes(h))) out.push('same_running_head');
  return out;
}

/** What each signal adds to (or takes from) the score of a boundary. */
export const WEIGHTS = {
  heading: 0.25,
  numbering_restart: 0.5,
  numbering_continues: -0.6,
  numbering_increases: -0.3,
  header_footer_change: 0.2,
  header_footer_ends: 0.1,
  same_header_footer: -0.35,
  letterhead: 0.25,
  same_letterhead: -0.3,
  complete_before: 0.3,
  letterhead_again: 0.2,
  paper_size_change: 0.45,
  layout_change: 0.15,
  style_change: 0.3,
  font_change: 0.3,
  same_style: -0.2,
  type_change: 0.3,
  script_change: 0.3,
  scan_change: 0.25,
  topic_shift: 0.5,
  blank_separator: 0.35,
  inner_heading: -0.3,
  closing_before: 0.15,
  back_matter_before: 0.15,
  runs_on: -0.2,
  same_topic: -0.15,
} as const;

/** Letter widths differing by this much (log ratio, about 20 %) are another font. */
const FONT_CHANGE = 0.18;

/** A page starts a section when its score reaches this. */
export const THRESHOLD = 0.5;

const LABELS: Record<string, string> = {
  heading: 'title at the top of the page',
  numbering_restart: 'page numbering restarts',
  header_footer_change: 'running header or footer changes',
  header_footer_ends: 'running header or footer ends',
  letterhead: 'a new letterhead at the top',
  complete_before: 'the page before is a whole document (letterhead or title, closing words)',
  letterhead_again: 'the letterhead starts again after a whole document',
  paper_size_change: 'paper size changes',
  layout_change: 'margins change',
  style_change: 'text styles change (font sizes and weights, body text size)',
  font_change: 'the body font changes (letter widths)',
  type_change: 'document type changes',
  script_change: 'the writing system changes',
  scan_change: 'scanned and born-digital pages meet',
  topic_shift: 'topic shift',
  blank_separator: 'blank separator page before',
  closing_before: 'closing words end the page before',
  back_matter_before: 'the page before ends a document (back cover, colophon, about the author)',
};

/**
 * Signs that a page continues the one before, whatever else it shows (a title, a letterhead printed again):
 * such a page never starts a section.
 */
const CONTINUES: Record<string, string> = {
  page_x_of_n: 'the page is numbered x of n with x > 1',
  same_document_number: 'the same document number as the page before',
  same_running_head: 'the same running head as the page before',
};

/** Shared share of two term sets (Jaccard). */
function overlap(a: Map<string, number>, b: Map<string, number>): number {
  if (!a.size || !b.size) return 0;
  let common = 0;
  for (const k of a.keys()) if (b.has(k)) common++;
  return common / (a.size + b.size - common);
}

/** Cosine similarity of two weighted term maps. */
function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    const w = b.get(k);
    if (w) dot += v * w;
  }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function vcos(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** TF-IDF over the document's pages: words on every page (boilerplate of the kind) weigh nothing. */
function tfidf(pages: PageFeatures[]): Map<string, number>[] {
  const df = new Map<string, number>();
  for (const p of pages) for (const k of p.terms.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = pages.length;
  return pages.map((p) => {
    const out = new Map<string, number>();
    for (const [k, c] of p.terms) {
      const idf = Math.log((n + 1) / (df.get(k)! + 0.5));
      if (idf > 0) out.set(k, (1 + Math.log(c)) * idf);
    }
    return out;
  });
}

/** Summed term weights of pages [from, to) (a TextTiling block). */
function windowOf(vectors: Map<string, number>[], from: number, to: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = Math.max(0, from); i < Math.min(vectors.length, to); i++) for (const [k, v] of vectors[i]!) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

/**
 * Similarity of the text before and after each page break (TextTiling with blocks of up to two pages),
 * mixed with the similarity of the pages' vectors when given. sims[i] is the similarity across the break
 * before page i+1 (index 0 unused).
 */
function gapSimilarities(pages: PageFeatures[], vectors?: (Float32Array | null)[]): number[] {
  const tv = tfidf(pages);
  const sims: number[] = [1];
  for (let i = 1; i < pages.length; i++) {
    // adjacent pages weigh most; the two-page blocks smooth a page that is a table or a figure
    const near = cosine(tv[i - 1]!, tv[i]!);
    const wide = cosine(windowOf(tv, i - 2, i), windowOf(tv, i, i + 2));
    // a page may come back to the words of pages before its neighbour (a back cover, an appendix)
    let back = 0;
    for (let j = Math.max(0, i - 8); j < i - 1; j++) back = Math.max(back, cosine(tv[j]!, tv[i]!));
    let s = Math.max(near, wide, back * 0.8);
    const a = vectors?.[i - 1];
    const b = vectors?.[i];
    if (a && b && a.length === b.length) s = (s + Math.max(0, vcos(a, b))) / 2;
    sims.push(s);
  }
  return sims;
}

const sameSize = (a: PageFeatures, b: PageFeatures) => {
  const [a1, a2] = [Math.min(a.width, a.height), Math.max(a.width, a.height)];
  const [b1, b2] = [Math.min(b.width, b.height), Math.max(b.width, b.height)];
  return Math.abs(a1 - b1) <= a1 * 0.03 && Math.abs(a2 - b2) <= a2 * 0.03;
};

/**
 * Titles that come inside a document, not at its start: numbered sections ("2.1 Scope", "Chapter 3") and
 * front and back matter (contents, preface, index, back cover...).
 */
const INNER_HEADING = /^\s*(\d+\.\d+[\d.]*\s|(chapter|section|part|appendix|annex)\s+([2-9]|\d{2,}|[b-z]\b|[IVX]{2,})|(table of )?contents\b|preface\b|foreword\b|notices\b|acknowledg|list of (figures|tables)|index\s*$|glossary\b|bibliography\b|references\s*$|back cover\b)/i;

/**
 * A numbered section heading ("5.1 Results") that does not follow the numbered headings of the pages before
 * (none there, or numbers that do not lead to it) is no sign of a page inside the same document: it may as well
 * be the first page of another document taken from its middle.
 */
function sectionOutOfSequence(heading: string, before: PageFeatures[]): boolean {
  const m = /^\s*(\d{1,2})\.\d/.exec(heading);
  if (!m) return false;
  const major = Number(m[1]);
  const seen = before.flatMap((p) => p.sectionNumbers);
  return !seen.some((n) => n === major || n === major - 1);
}

const startsLower = (s: string) => /^\p{Ll}/u.test(s);

/** A boundary this strong is taken as known when the pages after it are scored again (see scoreBoundaries). */
const CLEAR = 0.9;

/**
 * Scores the break before each page 2..N. The page before is compared with the pages before it (running
 * headers, text styles, page numbers over up to three pages); a clear boundary found in a first pass bounds
 * that look-back in the second, so that a page is compared only with pages of its own document (a short
 * form after a paper no longer lends the paper's styles to the form).
 */
export function scoreBoundaries(pages: PageFeatures[], vectors?: (Float32Array | null)[]): Boundary[] {
  const sims = gapSimilarities(pages, vectors);
  const first = scorePass(pages, sims, () => 0);
  const clear = first.filter((b) => b.score >= CLEAR).map((b) => b.page - 1);
  if (!clear.length) return first;
  // index of the first page of the document that page index i is in, as far as the clear boundaries say
  const floorOf = (i: number) => clear.reduce((f, c) => (c <= i && c > f ? c : f), 0);
  return scorePass(pages, sims, floorOf);
}

function scorePass(pages: PageFeatures[], sims: number[], floorOf: (index: number) => number): Boundary[] {
  // the usual similarity between neighbouring pages of this file: a shift is a drop well below it
  const typical = [...sims.slice(1)].sort((a, b) => a - b)[Math.floor((sims.length - 1) * 0.75)] ?? 0;
  const out: Boundary[] = [];
  for (let i = 1; i < pages.length; i++) {
    const cur = pages[i]!;
    let prevIndex = i - 1;
    // a blank page separates; what follows is compared with the last page that has text
    const blankBefore = pages[prevIndex]!.blank;
    while (prevIndex > 0 && pages[prevIndex]!.blank) prevIndex--;
    const prev = pages[prevIndex]!;
    if (cur.blank) {
      out.push({ page: cur.page, score: 0, signals: [] });
      continue;
    }
    const signals: string[] = [];
    const add = (name: keyof typeof WEIGHTS) => signals.push(name);
    if (blankBefore && !prev.blank) add('blank_separator');
    // pages before the start of the previous page's document say nothing about it
    const floor = floorOf(prevIndex);
    if (cur.headingStrength >= 0.5 && cur.heading && !(prev.heading && prev.heading === cur.heading)) {
      if (!INNER_HEADING.test(cur.heading)) add('heading');
      else if (!sectionOutOfSequence(cur.heading, pages.slice(Math.max(floor, prevIndex - 2), prevIndex + 1))) add('inner_heading');
    }
    const pn = cur.pageNumber;
    // the last printed page number of the three pages before
    let pp: PageFeatures['pageNumber'] = null;
    let ppLook: string | null = null;
    let gap = 1;
    for (let j = prevIndex; j >= Math.max(floor, prevIndex - 2) && !pp; j--, gap++) [pp, ppLook] = [pages[j]!.pageNumber, pages[j]!.pageNumberLook];
    gap--;
    if (pn && pn.n === 1 && (!pp || pp.n >= 1)) add('numbering_restart');
    else if (pn && pp && pn.n === pp.n + gap && (pn.of === null || pp.of === null || pn.of === pp.of)) add('numbering_continues');
    else if (pn && pp && pn.of !== null && pp.of !== null && pn.of !== pp.of) add('numbering_restart');
    // a number further on, printed the same way at the same place (pages left out of one document); printed
    // otherwise ("Page 13" at the foot, then "200" at the top) it is another document's numbering
    else if (pn && pp && pn.n > pp.n && pn.n <= pp.n + 200 && (pn.of === null || pp.of === null || pn.of === pp.of) && cur.pageNumberLook === ppLook) add('numbering_increases');
    // a running header or footer is one that repeats from page to page (or every other page, as in books);
    // it changing or ending is a signal
    const before = prevIndex > floor ? pages[prevIndex - 1]! : null;
    const shared = cur.marginals.filter((m) => prev.marginals.includes(m) || (before?.marginals.includes(m) ?? false));
    const beforeBefore = prevIndex > floor + 1 ? pages[prevIndex - 2]! : null;
    const running = prev.marginals.filter((m) => (before?.marginals.includes(m) ?? false) || (beforeBefore?.marginals.includes(m) ?? false));
    if (shared.length) add('same_header_footer');
    // across a blank separator the running header and footer say nothing more than the blank page does
    else if (running.length && !blankBefore) add(cur.marginals.length ? 'header_footer_change' : 'header_footer_ends');
    // the text styles of this page against those of the two pages before
    if (cur.styles.size && prev.styles.size) {
      const seen = new Set([...prev.styles, ...(before?.styles ?? [])]);
      const common = [...cur.styles].filter((x) => seen.has(x)).length;
      const jaccard = common / (cur.styles.size + seen.size - common);
      if (common === 0 || jaccard < 0.15) add('style_change');
      else if (jaccard >= 0.5) add('same_style');
    }
    // the body font: letters of one font are as wide against their height at any size; pages of one document
    // keep it (a page of code or a table moves it by less than a sixth)
    if (cur.fontAspect !== null && prev.fontAspect !== null && Math.abs(Math.log(cur.fontAspect / prev.fontAspect)) > FONT_CHANGE) add('font_change');
    // a letterhead unlike the top of the page before; the same one again is a continuation page
    const topOverlap = overlap(termsOf(cur.top), termsOf(prev.top));
    if (cur.letterhead && topOverlap < 0.3 && !shared.length) add('letterhead');
    else if (cur.letterhead && prev.letterhead && topOverlap >= 0.6) add('same_letterhead');
    // the page before is a whole document: it opens with a letterhead or title and ends with closing words
    if (prev.closing && (prev.letterhead || prev.headingStrength >= 0.5) && (cur.letterhead || cur.headingStrength >= 0.5)) add('complete_before');
    if (!sameSize(cur, prev)) add('paper_size_change');
    // margins on both sides move (the body text size is part of the text styles)
    const layoutMoved = cur.left !== null && prev.left !== null && Math.abs(cur.left - prev.left) > 0.08 && cur.right !== null && prev.right !== null && Math.abs(cur.right - prev.right) > 0.08;
    if (layoutMoved) add('layout_change');
    if (cur.type && prev.type && cur.type !== prev.type) add('type_change');
    if (cur.script && prev.script && cur.script !== prev.script) add('script_change');
    // a scanned page next to a born-digital one: documents are rarely half scanned
    if (cur.ocr !== prev.ocr) add('scan_change');
    const sim = sims[i]!;
    // a drop well below the file's usual similarity of neighbours (pages with little text say little)
    // pages with few words say less (a form with a handful of labels)
    const wordy = Math.max(0, Math.min(1, (Math.min(cur.terms.size, prev.terms.size) - 2) / 6));
    // pages of one document share their own words (TF-IDF over this file's pages: words on every page weigh
    // nothing); neighbours that share almost none are the strongest sign of a new document
    const level = Math.max(0.04, Math.min(0.12, typical));
    const shift = wordy * Math.max(0, Math.min(1, (level - sim) / level)) ** 2;
    if (prev.closing) add('closing_before');
    if (prev.backMatter) add('back_matter_before');
    // a sentence running on: the page before ends inside a sentence (not a one-word label such as a form's
    // "signature") and this page's first line goes on in lower case
    if (!prev.closing && /[\p{Ll},]\s*$/u.test(prev.lastText) && prev.lastText.split(/\s+/).length >= 4 && startsLower(cur.firstLine) && cur.firstLine.split(/\s+/).length >= 3) add('runs_on');
    if (wordy >= 1 && sim >= level) add('same_topic');
    if (signals.includes('complete_before')) {
      // after a whole document, likeness says little: two receipts of one shop share words, styles and
      // letterhead; the letterhead starting the page again is what counts
      for (const k of ['same_topic', 'same_style', 'same_letterhead']) if (signals.includes(k)) signals.splice(signals.indexOf(k), 1);
      if (cur.letterhead && !signals.includes('letterhead')) add('letterhead_again');
    }
    let score = signals.reduce((s, k) => s + WEIGHTS[k as keyof typeof WEIGHTS], 0);
    if (shift > 0.05) {
      score += WEIGHTS.topic_shift * shift;
      signals.push('topic_shift');
    }
    const continues = continuation(cur, prev, blankBefore, signals);
    if (continues.length) {
      // a continuation page never starts a section: below the threshold by far, whatever the other signals say
      out.push({ page: cur.page, score: Math.min(Math.round(score * 1000) / 1000, CONTINUATION_SCORE), signals: [...continues, ...signals], similarity: Math.round(sim * 1000) / 1000, continues });
      continue;
    }
    out.push({ page: cur.page, score: Math.round(score * 1000) / 1000, signals, similarity: Math.round(sim * 1000) / 1000 });
  }
  return out;
}

/** What `instructions` ask for, read offline: every N pages, each page, a number of sections, or a phrase that starts each section. */
export function readInstructions(text: string | undefined): { everyPages?: number; sections?: number; startsWith?: string[] } {
  if (!text) return {};
  const t = text.toLowerCase();
  const out: { everyPages?: number; sections?: number; startsWith?: string[] } = {};
  const every = /\bevery\s+(\d{1,4})\s+pages?\b/.exec(t) ?? /\b(\d{1,4})\s+pages?\s+(each|per\s+(section|document))\b/.exec(t);
  if (every) out.everyPages = Number(every[1]);
  else if (/\b(each|every|per)\s+(single\s+)?page\b|\bone\s+(section|document)\s+per\s+page\b/.test(t)) out.everyPages = 1;
  const count = /\b(?:into|in)\s+(\d{1,3})\s+(?:sections?|documents?|parts?)\b/.exec(t) ?? /\b(\d{1,3})\s+(?:sections|documents|parts)\b/.exec(t);
  if (count) out.sections = Number(count[1]);
  const quoted = [...text.matchAll(/["“']([^"”']{2,60})["”']/g)].map((m) => m[1]!.toLowerCase());
  if (quoted.length && /\b(start|begin|split|new)\b/.test(t)) out.startsWith = quoted;
  return out;
}

/** Picks boundaries: those over the threshold (or the strongest `sections - 1`), keeping every section at least `minPages` long. */
export function chooseBoundaries(scored: Boundary[], opts: { minPages: number; sections?: number; pages: number; forced?: Set<number> }): Set<number> {
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.page - b.page);
  const chosen = new Set<number>();
  const fits = (page: number) => {
    const starts = [1, ...chosen, page].sort((a, b) => a - b);
    for (let i = 0; i < starts.length; i++) {
      const end = (starts[i + 1] ?? opts.pages + 1) - 1;
      if (end - starts[i]! + 1 < opts.minPages) return false;
    }
    return true;
  };
  for (const p of opts.forced ?? []) if (p > 1 && fits(p)) chosen.add(p);
  for (const b of ranked) {
    if (opts.sections !== undefined ? chosen.size >= opts.sections - 1 : b.score < THRESHOLD) break;
    if (!b.continues?.length && fits(b.page)) chosen.add(b.page);
  }
  return chosen;
}

const clamp = (x: number) => Math.max(0.01, Math.min(0.99, x));
/** Score → confidence that the page starts a section (logistic around the threshold). */
const startConfidence = (score: number) => clamp(1 / (1 + Math.exp(-6 * (score - THRESHOLD))));

/** a sentence of body text or a footer's notice, not a name: over 20 words, or 6 and more ending with . ; or , */
function isSentence(t: string): boolean {
  const words = t.split(/\s+/).filter(Boolean).length;
  return words > 20 || (words >= 6 && /[.;,]$/.test(t));
}

/**
 * an address running on after a name: a house or lot number and a comma ("NO 290, JALAN AIR PANAS",
 * "LOT 37634,JALAN"), a comma then a number ("Mill Lane, 48"), or a five-digit postcode after a comma
 */
const ADDRESS_INSIDE = /\b(?:no\.?|lot)\s*\d+[\w/-]*\s*,|,\s*(?:no\.?\s*|lot\s*)?\d|,.*\b\d{5}\b/i;

/** The document types a section is given (the last when none fits). */
export const DOCUMENT_TYPES = ['invoice', 'receipt', 'form', 'letter', 'report', 'statement', 'contract', 'article', 'other'] as const;

/** marks of a scholarly or press article */
const ARTICLE_MARKS = /\b(abstract|et al\.?|doi|journal|proceedings|arxiv|keywords|references|bibliography)\b/gi;

/**
 * The document type of a section and how sure it is (0..1): the type scores of its pages (pages.ts:
 * a naming phrase at the top, frequent words), the first page counted twice. A paper (an abstract on the
 * first page and the marks of a paper: et al., references, doi, journal...) is an article; a section whose
 * best score stays under 2 is `other`, surer the less any type shows.
 */
export function sectionType(pages: PageFeatures[]): { type: (typeof DOCUMENT_TYPES)[number]; confidence: number } {
  const sum = new Map<string, number>();
  pages.forEach((p, i) => {
    for (const [t, v] of p.typeScores) sum.set(t, (sum.get(t) ?? 0) + v * (i === 0 ? 2 : 1));
  });
  const ranked = [...sum].map(([t, v]) => [t, v / (pages.length + 1)] as const).sort((a, b) => b[1] - a[1]);
  // a letter: a salutation opening a line and a sign-off, wherever they stand on the first page
  const opening = pages[0]?.text ?? '';
  if (/^\s*(dear|to whom it may concern)\b/im.test(opening) && /\b(yours\s+(sincerely|faithfully|truly)|sincerely|(kind|best|warm)\s+regards)\b/i.test(pages.map((p) => p.text).join('\n'))) {
    sum.set('letter', (sum.get('letter') ?? 0) + 3 * (pages.length + 1));
    ranked.splice(0, ranked.length, ...[...sum].map(([t, v]) => [t, v / (pages.length + 1)] as const).sort((a, b) => b[1] - a[1]));
  }
  const [best, score] = ranked[0] ?? [null, 0];
  const second = ranked[1]?.[1] ?? 0;
  const marks = pages.reduce((n, p) => n + (p.text.match(ARTICLE_MARKS)?.length ?? 0), 0);
  if ((best === 'report' || score < 2) && /\babstract\b/i.test(pages[0]?.text ?? '') && marks >= 3) return { type: 'article', confidence: round3(Math.min(0.95, 0.55 + 0.05 * marks)) };
  if (!best || score < 2 || !(DOCUMENT_TYPES as readonly string[]).includes(best)) return { type: 'other', confidence: round3(Math.max(0.3, Math.min(0.9, 1 - score / 4))) };
  return { type: best as (typeof DOCUMENT_TYPES)[number], confidence: round3(Math.max(0.3, Math.min(0.99, 0.35 + 0.08 * score + 0.35 * ((score - second) / score)))) };
}
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** a line whose first word is all lower case (after any marks): a scrawled name or a sentence running on, no name */
const LOWER_START = /^[^\p{L}]*\p{Ll}[\p{Ll}\p{M}'’-]*(?:\s|$)/u;

/**
 * A section's name: the title on its first page (findTitle), else the page's heading or first line when that
 * reads as a title (never a table row, an address, a date or OCR noise: notATitle), else its type and pages.
 */
function nameOf(doc: ParsedDocument, first: PageFeatures, type: string | null, start: number, end: number): string {
  // spaces run together, trailing commas and colons (a line cut where its address went on) left out
  const clean = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').replace(/[\s,;:]+$/, '').trim();
  const found = findTitle(doc, { page: first.page });
  // the first line stands for its block: not when the block is an address (a letter's addressee, a sender's letterhead)
  const firstBlock = first.firstLine ? doc.blocks.find((b) => b.page === first.page && b.text.trimStart().startsWith(first.firstLine)) : undefined;
  const firstLine = firstBlock && firstBlock.text.split('\n').slice(0, 6).some((l) => l.trim() && notATitle(l)) ? null : first.firstLine;
  // the title finder's title first; whichever it is, never a sentence or a name that runs on into an address
  const title = [found ? clean(found.text) : null, ...[first.heading, firstLine].map(clean).filter((t) => t.length >= 3 && /\p{L}/u.test(t) && !notATitle(t) && !LOWER_START.test(t) && plausibleTitle(t))].find(
    (t): t is string => !!t && !isSentence(t) && !ADDRESS_INSIDE.test(t),
  );
  const range = start === end ? `page ${start}` : `pages ${start}-${end}`;
  if (title) return title.length > 60 ? `${title.slice(0, 57).trimEnd()}...` : title;
  return `${type ? type[0]!.toUpperCase() + type.slice(1) : 'Section'} (${range})`;
}

/** Detects the documents in a parsed file: sections with names, confidence, reasons and types. */
export function detectSections(doc: ParsedDocument, options: SplitDetectOptions = {}): SplitSuggestion[] {
  const pages = pageFeatures(doc);
  const n = pages.length;
  if (!n) return [];
  const minPages = Math.max(1, Math.floor(options.minSectionPages ?? 1));
  const wish = readInstructions(options.instructions);
  const scored = scoreBoundaries(pages, options.pageVectors);
  let chosen: Set<number>;
  const reasons = new Map<number, string>();
  if (wish.everyPages) {
    const step = Math.max(wish.everyPages, minPages);
    chosen = new Set();
    for (let p = 1 + step; p <= n; p += step) {
      chosen.add(p);
      reasons.set(p, `every ${step} page${step > 1 ? 's' : ''}, as instructed`);
    }
  } else {
    const forced = new Set<number>();
    for (const phrase of wish.startsWith ?? []) for (const p of pages) if (p.page > 1 && p.top.toLowerCase().includes(phrase)) {
      forced.add(p.page);
      reasons.set(p.page, `starts with "${phrase}", as instructed`);
    }
    chosen = chooseBoundaries(scored, { minPages, sections: wish.sections, pages: n, forced });
  }
  const starts = [1, ...[...chosen].sort((a, b) => a - b)];
  const byPage = new Map(scored.map((b) => [b.page, b]));
  const out: SplitSuggestion[] = [];
  for (let i = 0; i < starts.length; i++) {
    let start = starts[i]!;
    let end = (starts[i + 1] ?? n + 1) - 1;
    // blank separator pages belong to no section
    while (start < end && pages[start - 1]!.blank) start++;
    while (end > start && pages[end - 1]!.blank) end--;
    const inner = scored.filter((b) => b.page > start && b.page <= end && !pages[b.page - 1]!.blank);
    const strongestInside = inner.reduce((m, b) => Math.max(m, b.score), -Infinity);
    const b = byPage.get(starts[i]!);
    const startConf = i === 0 ? 0.99 : reasons.has(starts[i]!) ? 0.95 : startConfidence(b?.score ?? 0);
    const noSplitConf = inner.length ? 1 - startConfidence(strongestInside) : 0.99;
    const { type, confidence: typeConfidence } = sectionType(pages.slice(start - 1, end));
    const signals = i === 0 ? ['document_start'] : (b?.signals ?? []).filter((s) => LABELS[s]);
    const reason =
      i === 0
        ? starts.length > 1
          ? 'start of the file'
          : 'no document boundary found: the file reads as one document'
        : (reasons.get(starts[i]!) ?? (signals.length ? signals.map((s) => LABELS[s]).join('; ') : 'strongest boundary candidates, as many sections as instructed'));
    // the pages kept in the section because they continue the page before, and why
    const kept = inner.filter((x) => x.continues?.length).map((x) => `page ${x.page}: ${x.continues!.map((c) => CONTINUES[c]).join('; ')}`);
    out.push({
      name: nameOf(doc, pages[start - 1]!, type === 'other' ? null : type, start, end),
      page_start: start,
      page_end: end,
      confidence: Math.round(clamp(Math.min(startConf, noSplitConf) * 0.5 + ((startConf + noSplitConf) / 2) * 0.5) * 1000) / 1000,
      reason: kept.length ? `${reason} (continued: ${kept.join(', ')})` : reason,
      document_type: type,
      document_type_confidence: typeConfidence,
      signals,
    });
  }
  return out;
}
