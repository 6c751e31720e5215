/**
 * The offline answerer: answers a question by quoting the sources the host's retrieval found, without an LLM.
 * A typed `value` (one sentence, one label with its value, or one table cell) when the question asks for a type
 * of entity and one span holds it; else a `passage` of the one or two sentences that say the question best; else
 * the refusal (`none`). Questions about a document as a whole (title, author, date, what it is about) are answered
 * from its title and first section. Its confidence is what the answer stands on: how much of the question the
 * quoted text covers, whether it holds the asked-for type, and the retrieval's scores.
 */
import { NOT_FOUND_ANSWER } from '@quire/core';
import { documentDateOrder, scanDates } from '@quire/fields';
import type { AnswerChunk, AnswerDocument, AnswerRequest, AnswerResult, AnswerSource, AnswerTermStats } from '@quire/core';
import { LOWER_WORD, abbreviationAsked, alternativesOf, capitalsIn, cellKey, contactAsked, contactValues, rowLookupAsked, townAsked, townsIn, definitionsOf, optionGroups, printsAbbreviation, shortFormAsked, isLabelLine, labelValue, labelWithoutColon, codeBlocksOf, decompose, focusTerms, hasName, holdsNames, kindTerms, questionPredicate, questionTerms, round, subjectVerb, terms, termSet, unitsOf } from '@quire/text';
import type { CodeBlock, Definition, LabelForm, Unit } from '@quire/text';
import { amountsOf, countedWords, countsNear, holdsFullDate, asksForCompany, holdsCompany, holdsType, printsTypeMark, questionWords, totalLine, typeAsked } from './answer-types.js';
import type { AnswerType } from './answer-types.js';
import { AUTHOR_LINE, DOCUMENT_WORDS, cellAnswer, documentAspect, isFragment } from './answer-shape.js';
import type { AnswerKind, DocumentAspect } from './answer-shape.js';

type ChatMode = AnswerRequest['mode'];
type SearchHit = AnswerSource;
type ChatCitation = AnswerSource;

// ---------------------------------------------------------------- term statistics of a knowledge base

class Idf {
  constructor(
    private readonly n: number,
    private readonly df: (t: string) => number,
  ) {}
  /** ln(1 + (N+1)/(df+0.5)) */
  of(t: string): number {
    return Math.log(1 + (this.n + 1) / (this.df(t) + 0.5));
  }
  has(t: string): boolean {
    return this.df(t) > 0;
  }
  /** the weight of a term found in one chunk */
  rare(): number {
    return Math.log(1 + (this.n + 1) / 1.5);
  }
}


/** Whether some document of the knowledge base has the term itself. */
const someHas = (docTerms: DocTerms, t: string) => [...docTerms.values()].some((d) => d.has(t));


/** Per document: whether a term occurs anywhere in it (or in its name). */
type DocTerms = AnswerTermStats['documents'];
type DocTermsOf = DocTerms extends ReadonlyMap<string, infer V> ? V : never;


/** What a question (or a part of one) asks: its terms' weights, the terms a quoted sentence needs, the asked-for type. */
export interface Ask {
  text: string;
  weights: Map<string, number>;
  primary: Set<string>;
  /** the type of entity the answer must hold (who → person…), null when any statement may answer */
  type: AnswerType | null;
  /** the question's own words: an entity it already names is not an answer */
  own: Set<string>;
  /** the names and numbers of the question: an answer comes from a document that has them */
  names: string[];
  /** the kind of thing asked for ("which word processor"): no evidence that a sentence answers */
  kind: Set<string>;
  /** whether the question asks for one of a kind by its noun alone ("which credit derivative instrument …"): a name by default */
  oneOfAKind: boolean;
  /** the dates the question prints, each with its words as terms ("4 January 2018": 2018-01-04, "4", "january", "2018") */
  dates: { iso: string; words: string[] }[];
}

/** What a question asks, with its terms' weights (exported for the unit tests). */
export function ask(text: string, weights: Map<string, number>): Ask {
  const qt = questionTerms(text);
  const { type, byKind } = typeAsked(text);
  return { text, weights, primary: new Set(qt.map((t) => t.term)), type, own: questionWords(text), names: qt.filter((t) => t.entity).map((t) => t.term), kind: new Set(kindTerms(text)), oneOfAKind: byKind, dates: askedDates(text) };
}

interface Retrieval {
  hits: SearchHit[];
  /** the question parts (deep mode), each with its own query weights */
  parts: Ask[];
  /** the whole question */
  ask: Ask;
  /** weights of the whole question (plus the previous question's terms for follow-ups) */
  weights: Map<string, number>;
  /** the question's own terms: a quoted sentence has at least one of them */
  primary: Set<string>;
}

/**
 * IDF weights of the question's terms. A term the knowledge base lacks altogether weighs like its rarest
 * term when it is a name or number (the question is about something the sources do not have), half that
 * when it is a plain word (the sources may say it otherwise). Follow-ups add the previous question's terms
 * at half weight.
 */
function queryWeights(question: string, idf: Idf, context?: string): Map<string, number> {
  const w = new Map<string, number>();
  const weigh = (t: string, key: boolean) => (idf.has(t) ? idf.of(t) : key ? idf.rare() : 0.5 * idf.rare());
  // the focus of the question ("how many caps", "what is the capital") weighs more, and counts as a key term
  const focus = new Set(focusTerms(question));
  for (const { term, entity } of questionTerms(question)) w.set(term, weigh(term, entity || focus.has(term)) * (focus.has(term) ? 1.5 : 1));
  if (context) for (const { term, entity } of questionTerms(context)) if (!w.has(term)) w.set(term, 0.5 * weigh(term, entity));
  return w;
}

const primaryTerms = (question: string) => new Set(questionTerms(question).map((t) => t.term));

// ---------------------------------------------------------------- extractive answers

export interface Candidate {
  /** the quoted text: a sentence, row or line, with the value or label printed next to it when that holds the answer */
  unit: Unit;
  hit: SearchHit;
  /** rank of the hit, for a stable order */
  hitRank: number;
  terms: Set<string>;
  coverage: number;
  /** the share of the question the quoted text itself covers (no credit for the rest of its chunk or document) */
  sentenceCoverage: number;
  /** query terms found in the sentence itself */
  own: number;
  /** whether the quoted text holds an entity of the asked-for type (true when the question asks for none) */
  typed: boolean;
  score: number;
  /** whether the quoted text lacks the question's key term (keyTerm) */
  keyMissing: boolean;
  /** whether the quoted text's document has the question's key term (false when there is none) */
  keyInDocument: boolean;
  /** whether the quoted text, lacking the key term, refers back ("These ducks …") to the sentence before it in its chunk, which says it */
  keyBefore: boolean;
}

/** the first word of a sentence that refers back to the one before it: a pronoun or a demonstrative */
const REFERS_BACK = /^(?:this|these|that|those|it|its|they|their|them|he|his|she|her|such)\b/i;

const MIN_COVERAGE = 0.5;
const MAX_SENTENCE_CHARS = 700;
/** how much a term counts when the sentence has it as a synonym, elsewhere in its chunk, elsewhere in its document */
const SYNONYM_WEIGHT = 0.85;
const CHUNK_WEIGHT = 0.35;
const DOC_WEIGHT = 0.35;
const DOC_NAME_WEIGHT = 0.8;
/** a question that asks for a type of entity needs less of its wording in the answer: holding the type is evidence too */
const MIN_TYPED_COVERAGE = 0.4;
/** a neighbouring line joined to a sentence as its label or value: at most this many words */
const NEIGHBOUR_WORDS = 40;
/** a label that takes its value from the line below or above: at most this many words, and that value at most VALUE_WORDS */
const LABEL_WORDS = 10;
const VALUE_WORDS = 12;

/** 1 when `terms` has the term, SYNONYM_WEIGHT when it has a synonym of it, else 0. */
function matchOf(t: string, terms: Set<string>): number {
  if (terms.has(t)) return 1;
  for (const alt of alternativesOf(t)) if (terms.has(alt)) return SYNONYM_WEIGHT;
  // the stemmer leaves some inflections apart ("incorporated" → incorporat, "incorporation" → incorpor): a long stem
  // that begins the other is the same word
  if (t.length >= PREFIX_STEM) for (const x of terms) if (x.length >= PREFIX_STEM && (x.startsWith(t) || t.startsWith(x))) return SYNONYM_WEIGHT;
  // a compound that begins with the word, as German and Dutch write them ("order" / "Orderdatum", "konto" / "Kontoinhaber")
  if (t.length >= COMPOUND_HEAD) for (const x of terms) if (x.length >= t.length + COMPOUND_TAIL && x.startsWith(t)) return SYNONYM_WEIGHT;
  // the doer of a verb: "managed" / "manager", "invented" / "inventor"
  if (t.length >= AGENT_STEM) for (const suffix of ['er', 'or']) if (terms.has(t + suffix) || (t.endsWith(suffix) && t.length - 2 >= AGENT_STEM && terms.has(t.slice(0, -2)))) return SYNONYM_WEIGHT;
  return 0;
}
/** the least length of a word that may begin a compound, and of the word that follows it there */
const COMPOUND_HEAD = 5;
const COMPOUND_TAIL = 4;
/** the least length of a verb's stem whose doer (stem + "er"/"or") counts as the same word */
const AGENT_STEM = 4;
/** the least length of a stem that counts as the same word as a longer stem it begins */
const PREFIX_STEM = 7;

/**
 * IDF-weighted share of the query's terms the sentence covers: in the sentence itself (a synonym counts
 * SYNONYM_WEIGHT), else elsewhere in its chunk (CHUNK_WEIGHT) or its document (DOC_WEIGHT: "the Coolblue
 * invoice" names the document, not the sentence that holds its date: such a word counts DOC_NAME_WEIGHT for the sentence
 * too, which need not repeat it).
 */
function coverage(weights: Map<string, number>, sentence: Set<string>, chunk: Set<string>, doc?: DocTermsOf): { coverage: number; sentence: number; own: number } {
  let total = 0;
  let got = 0;
  let inSentence = 0;
  let own = 0;
  for (const [t, w] of weights) {
    total += w;
    const m = matchOf(t, sentence);
    if (m) {
      got += m * w;
      inSentence += m * w;
      own++;
      continue;
    }
    const c = matchOf(t, chunk);
    // (a word that names the sentence's document, "the Coolblue invoice", is said by the document: the sentence need not repeat it)
    if (doc?.names(t)) {
      got += DOC_NAME_WEIGHT * w;
      inSentence += DOC_NAME_WEIGHT * w;
    } else if (c) got += CHUNK_WEIGHT * c * w;
    else if (doc?.has(t)) got += DOC_WEIGHT * w;
  }
  return { coverage: total ? got / total : 0, sentence: total ? inSentence / total : 0, own };
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** the score of a candidate for "which company" that names none by its legal form */
const NO_LEGAL_FORM = 0.8;
/** A line of a record: a table row, or a label with its value ("Check Out: 01/01/2018"), whose subject a heading or another line names. */
const isRecordLine = (u: Unit) => u.kind === 'row' || (isLabelLine(u.text) && wordCount(u.text) <= LABEL_WORDS + VALUE_WORDS);

/**
 * The label of a line of a record: the first cell of a table row under a header (not the header row itself, whose cells
 * are labels of columns), or the words before the colon of a label with its value; null for any other unit.
 */
function recordLabel(u: Unit): string | null {
  if (u.kind === 'row') return u.columns ? (cellsOf(u).find((c) => c.trim())?.trim() ?? null) : null;
  return isLabelLine(u.text) && wordCount(u.text) <= LABEL_WORDS + VALUE_WORDS ? labelValue(u.text)!.label : null;
}

/** Whether a record line's own label (not its table's header) says every word of the kind of thing asked for ("operating profit"). */
function labelNamesKind(u: Unit, kind: ReadonlySet<string>): boolean {
  const label = recordLabel(u);
  if (!label || !kind.size) return false;
  const lt = termSet(label);
  // (a label that ends in an abbreviation of "number" says it: "Contract No.", "Rechnungs-Nr.", "Receipt #")
  if (NUMBER_MARK.test(label)) lt.add('number');
  return [...kind].every((t) => matchOf(t, lt) > 0);
}

/** the end of a label that abbreviates "number" */
const NUMBER_MARK = /(?:\b(?:no|nr|num|nº|n°)\.?|#)\s*:?\s*$/iu;

/** Two neighbouring units quoted as one ("TOTAL AMOUNT DUE" + "$4.11", "Bill to:" + "ACME Ltd"). */
function joinUnits(a: Unit, b: Unit): Unit {
  const head = a.cut === 'start' || a.cut === 'both';
  const tail = b.cut === 'end' || b.cut === 'both';
  const cut = head && tail ? 'both' : head ? 'start' : tail ? 'end' : undefined;
  const context = a.context ?? b.context;
  return { text: `${a.text} ${b.text}`, start: a.start, kind: a.kind === 'row' && b.kind === 'row' ? 'row' : 'sentence', ...(context ? { context } : {}), ...(cut ? { cut } : {}) };
}

/** The attribute a "what is the X of …" question asks for, as a term ("What is the BIC of the account?" → bic); null for other questions. */
export function attributeAsked(question: string): string | null {
  const m = question.match(/\b(?:what|which)\s+(?:is|are|was|were)\s+(?:the|its|their|his|her)\s+([\p{L}\p{N}-]+)\s+of\b/iu);
  return m ? (terms(m[1]!)[0] ?? null) : null;
}

/**
 * The question's key term: of `evidence` (its words that show a sentence answers it, without its names), the one
 * of highest weight (the rarest in the sources, or the focus of the question) that some document has; null when
 * none. A term no document has is none: the sources may say it otherwise.
 */
export function keyTerm(evidence: string[], weights: Map<string, number>, docTerms?: DocTerms): string | null {
  let best: string | null = null;
  for (const t of evidence) {
    if (docTerms && !someHas(docTerms, t)) continue;
    if (best === null || (weights.get(t) ?? 0) > (weights.get(best) ?? 0)) best = t;
  }
  return best;
}

/** Whether the question's terms name the document by a phrase of its name: two or more of its name's terms ("the fancy fields form"). */
const namesDocument = (primary: Set<string>, doc: DocTermsOf) => [...primary].filter((t) => doc.names(t)).length >= 2;

/** The quotable candidates of the hits for a question, best first (exported for the unit tests). */
export function candidatesFor(hits: SearchHit[], a: Ask, docTerms?: DocTerms, lower: ReadonlySet<string> = new Set()): Candidate[] {
  const { weights, primary } = a;
  const qTerms = new Set(weights.keys());
  // words the sources write in lower case are not names when capitalised ("Invoice", "Account")
  const common = new Set(lower);
  if (a.type === 'person' || a.type === 'place') for (const h of hits) for (const m of h.content.matchAll(LOWER_WORD)) common.add(m[0]);
  const holds = (text: string) => !a.type || holdsType(text, a.type, a.own, qTerms, common);
  // the question's names that some document has: a sentence from a document without them is about something else
  const names = docTerms ? a.names.filter((t) => someHas(docTerms, t)) : [];
  const numbers = a.names.filter((t) => /\d/.test(t));
  const verb = subjectVerb(a.text);
  const attribute = attributeAsked(a.text);
  // "which company…": a name with its legal form ("… Limited", "… GmbH") is likelier the answer than a capitalised label
  const company = a.type === 'person' && asksForCompany(a.text);
  const top = hits[0]?.score || 1;
  // a question that names documents by a phrase of their names ("on the sample form") is about those: a sentence of another is not
  const namedDocs = new Set(docTerms ? [...docTerms].filter(([, d]) => namesDocument(primary, d)).map(([id]) => id) : []);
  // "how many <noun>": the noun counted (a word of the sentence that is it, or a synonym)
  const countFocus = a.type === 'number' ? countedWords(a.text).flatMap((w) => terms(w)) : [];
  const counted = countFocus.length ? (w: string) => { const ts = termSet(w); return countFocus.some((f) => matchOf(f, ts) > 0); } : null;
  const out: Candidate[] = [];
  hits.forEach((hit, hitRank) => {
    const units = unitsOf(hit.content);
    const chunkTerms = termSet(hit.content);
    // (a chunk that prints the question's date in another form, "04/01/2018" for "4 January 2018", says the date's words)
    if (a.dates.length) {
      const printed = datesPrinted(hit.content);
      if (a.dates.every((d) => printed.has(d.iso))) for (const d of a.dates) for (const t of d.words) chunkTerms.add(t);
    }
    // (the caption of the chunk's table, which every row of it carries)
    const caption = termSet(units.find((u) => u.title)?.title ?? '');
    const doc = docTerms?.get(hit.document_id);
    // (a name the document writes in its own language counts: "VAT" in a Dutch invoice is "BTW")
    if (names.some((t) => !hasName(chunkTerms, t) && !hasName(doc, t))) return;
    const namedBy = namedDocs.has(hit.document_id);
    if (namedDocs.size && !namedBy) return;
    // a number of the question ("the 2010 World Cup", "chapter 13") is in the passage that answers it
    if (numbers.some((t) => !chunkTerms.has(t))) return;
    const neighbour = (u: Unit | undefined) => (u && u.kind !== 'heading' && wordCount(u.text) <= NEIGHBOUR_WORDS ? u : undefined);
    // the question's words that show a sentence answers it: not the kind of thing asked for, not the document's own name
    // (nor the words of the document's name when the question names it by a phrase of them, "the fancy fields form": they tell which
    // document, not which of its sentences answers; a single word of its name, "duck", may be what the question is about)
    const evidence = [...primary].filter((t) => !a.kind.has(t) && !((namedBy || a.names.includes(t)) && doc?.names(t)));
    // (a name of the question counts only as the attribute it asks for, "what is the BIC of …": the others name what the document is about)
    const key = keyTerm(evidence.filter((t) => !a.names.includes(t) || t === attribute), weights, docTerms);
    units.forEach((base, i) => {
      if (base.kind === 'heading' || base.text.length > MAX_SENTENCE_CHARS) return;
      const next = neighbour(units[i + 1]);
      const prev = neighbour(units[i - 1]);
      // a label ("Bill to Address:") is quoted with its value, the line after it
      // (not when the lines below are fields of their own: "Receipt details:" over "Restaurant: …", "Server: …")
      const fields = next && isLabelLine(next.text) && units[i + 2] && isLabelLine(units[i + 2]!.text);
      let unit = /:$/.test(base.text) && next && !fields ? joinUnits(base, next) : base;
      // a label whose value is not printed with it ("Receipt details for table service:") holds no answer
      let typed = !/:$/.test(unit.text) && holds(unit.text);
      // only a label without its value takes a value from a neighbouring line: not "Dining Type: Celebration", not a sentence,
      // not a table row (a header row heads the rows below it as their context: "Site | Score" over "Rotterdam | 97")
      const bare = unit === base && base.kind !== 'row' && !/:\s*\S/.test(base.text.replace(/:$/, '')) && !isLabelLine(base.text) && wordCount(base.text) <= LABEL_WORDS;
      if (!typed && bare) {
        // the value of a label printed on the line below it (or above it, as forms do)
        const value = (u: Unit | undefined) => u && wordCount(u.text) <= VALUE_WORDS && !isLabelLine(u.text) && holds(u.text);
        if (next && !fields && value(next)) unit = joinUnits(base, next);
        // (a label ending in a colon announces a value after it, never the line above)
        else if (prev && value(prev) && !/:$/.test(base.text)) unit = joinUnits(prev, unit);
        typed = unit !== base;
      }
      // a label printed without a colon names its value ("Fax +49 …" is no telephone number, "USt-IdNr. DE 232 …" no account): the
      // value answers a question that says the label's words, when its form is of the asked type
      const formed = labelWithoutColon(unit.text);
      if (formed?.form && a.type) typed = (FORM_ANSWERS[formed.form] ?? []).includes(a.type) && labelSays(formed.label, qTerms);
      // "how many arrests": a sentence answers only if it counts them, a number next to the counted noun (a row or a record line
      // names what its number counts by its label or header)
      if (typed && counted && unit.kind === 'sentence' && !isRecordLine(unit)) typed = countsNear(unit.text, a.own, counted);
      // (the unit just before it in its chunk, when both are sentences: the one a sentence that refers back continues)
      const prevSentence = unit === base && base.kind === 'sentence' && units[i - 1]?.kind === 'sentence' ? units[i - 1] : undefined;
      const ws = wordCount(unit.text);
      // (a label with its value may be two words: "BIC: SBGSAT2SXXX")
      if (ws < 3 && !(ws === 2 && typed && isLabelLine(unit.text))) return;
      // (a row says its header's words; its table's caption's too, "2007 | … | 633.9" under "Table 3 - European ABCP issuance", but
      // as its chunk's, not its own: they are every row's, and tell none of them apart)
      const own = termSet(unit.context ? `${unit.text} ${unit.context}` : unit.text);
      const ts = unit.title ? new Set([...own, ...caption]) : own;
      const c = coverage(weights, own, chunkTerms, doc);
      if (!c.own || (primary.size && ![...primary].some((t) => matchOf(t, ts)))) return;
      // (a line of a record whose own label names the kind of thing asked for, "Operating profit | 7262" for "what operating profit…",
      // "Choose a Gundam: Dynames" for "which Gundam…", is evidence itself: its label says what its value is)
      if (evidence.length && !evidence.some((t) => matchOf(t, ts)) && !labelNamesKind(unit, a.kind)) return;
      // a table row answers "which city / country / company …" only in a column that says so: its header or its own cells name the kind
      // (a date, an amount shows its kind by its form: a name does not)
      if (unit.kind === 'row' && (a.type === 'person' || a.type === 'place') && a.kind.size && ![...a.kind].some((t) => matchOf(t, ts))) return;
      // "what joins …", "who invented …": a sentence answers only if it says that relation (a line of a record names it by its label)
      if (verb && !matchOf(verb, ts) && !isRecordLine(unit) && unit === base) return;
      const lengthFactor = ws > 60 ? 0.8 : ws < 5 && unit.kind !== 'row' ? 0.85 : 1;
      // whole sentences read better than fragments, titles and reference-list entries
      // (a web address is the answer to where something is published, not the mark of a reference)
      // (nor is a table's source note, "SOURCE: U.S. Department of Education, …", the answer: it cites where the figures come from)
      const reference = a.type === 'place' ? /\bRetrieved\b|\bArchived\b|\b(?:SOURCES?|Sources?):/ : /https?:\/\/|www\.|\bRetrieved\b|\bArchived\b|\b(?:SOURCES?|Sources?):/;
      const quality = (unit.cut ? 0.88 : unit.kind === 'sentence' && !/[.!?"'”’)]$/.test(unit.text) && wordCount(unit.text) > 12 ? 0.85 : 1) * (reference.test(unit.text) ? 0.6 : 1);
      const score = (0.72 * c.coverage + 0.28 * (hit.score / top)) * lengthFactor * quality * (typed ? (company && !holdsCompany(unit.text) ? NO_LEGAL_FORM : 1) : 0.6);
      // (a label without a colon that says the question's words and holds a value of the asked form names what is asked, "Tel." the
      // telephone number, though the question's key term be a word every label says, "number")
      const named = !!formed?.form && !!a.type && typed;
      out.push({ unit, hit, hitRank, terms: ts, coverage: c.coverage, sentenceCoverage: c.sentence, own: c.own, typed, score, keyMissing: !named && !!key && !matchOf(key, ts), keyInDocument: !!key && !!doc?.has(key), keyBefore: !!key && !!prevSentence && REFERS_BACK.test(unit.text) && matchOf(key, termSet(prevSentence.text)) > 0 });
    });
  });
  return out.sort((a, b) => b.score - a.score || a.hitRank - b.hitRank || a.unit.start - b.unit.start);
}

/**
 * The dates a question prints ("the Gin Kee receipt of 4 January 2018"), each with its words as terms: a date is the same
 * date however a document prints it ("04/01/2018", "2018-01-04"), so a passage that prints it says those words.
 */
function askedDates(question: string): { iso: string; words: string[] }[] {
  return scanDates(question).map((d) => ({ iso: d.iso, words: [...termSet(question.slice(d.start, d.end))] }));
}

/** The days a text prints (ISO), in any of their forms (its numeric dates read in the day/month order the text itself uses). */
function datesPrinted(text: string): Set<string> {
  return new Set(scanDates(text, { order: documentDateOrder(text) }).map((d) => d.iso));
}

/** Whether two candidates are the same unit of the same chunk. */
const sameUnit = (a: Candidate, b: Candidate) => a.hit.chunk_id === b.hit.chunk_id && a.unit.start === b.unit.start;

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter || 1);
}

/** Greedy pick of well-supported, non-redundant sentences that add to what is already covered. */
function pick(cands: Candidate[], weights: Map<string, number>, max: number, taken: Candidate[], min = MIN_COVERAGE): Candidate[] {
  const best = cands[0];
  if (!best || best.coverage < min) return [];
  const chosen: Candidate[] = [];
  const covered = new Set<string>();
  const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
  const pool = [...cands];
  while (chosen.length < max && pool.length) {
    let bestIdx = -1;
    let bestValue = -1;
    for (let i = 0; i < pool.length; i++) {
      const c = pool[i]!;
      if (c.coverage < min * 0.7 || c.score < best.score * 0.6) continue;
      if ([...taken, ...chosen].some((x) => sameUnit(x, c) || jaccard(x.terms, c.terms) >= 0.6)) continue;
      let gain = 0;
      for (const [t, w] of weights) if (c.terms.has(t) && !covered.has(t)) gain += w;
      if (chosen.length && (c.score < best.score * 0.75 || (gain / total < 0.1 && c.score < best.score * 0.9))) continue;
      const value = c.score + 0.25 * (gain / total);
      if (value > bestValue) {
        bestValue = value;
        bestIdx = i;
      }
    }
    if (bestIdx < 0) break;
    const c = pool.splice(bestIdx, 1)[0]!;
    chosen.push(c);
    for (const t of c.terms) covered.add(t);
  }
  return chosen;
}

/** Orders picked sentences: sources in order of their best sentence, document order within a source. */
function orderPicked(picked: Candidate[]): Candidate[] {
  const firstSeen = new Map<string, number>();
  picked.forEach((c, i) => {
    if (!firstSeen.has(c.hit.document_id)) firstSeen.set(c.hit.document_id, i);
  });
  const idx = (c: Candidate) => Number(c.hit.metadata?.index ?? c.hitRank);
  return [...picked].sort((a, b) => firstSeen.get(a.hit.document_id)! - firstSeen.get(b.hit.document_id)! || idx(a) - idx(b) || a.unit.start - b.unit.start);
}

class CitationList {
  readonly list: ChatCitation[] = [];
  private readonly index = new Map<string, number>();
  /** 1-based number of a hit, adding it on first use */
  number(hit: SearchHit): number {
    let n = this.index.get(hit.chunk_id);
    if (!n) {
      this.list.push({ chunk_id: hit.chunk_id, document_id: hit.document_id, document_name: hit.document_name, page: hit.page, content: hit.content, score: hit.score, metadata: hit.metadata ?? {} });
      n = this.list.length;
      this.index.set(hit.chunk_id, n);
    }
    return n;
  }
}

interface Composed {
  /** value, passage or none; unset: none when unanswered, else passage */
  answerType?: AnswerKind;
  text: string;
  citations: ChatCitation[];
  confidence: number;
  unanswered: boolean;
  promptTokens: number;
  completionTokens: number;
  /** for the trace (opt-in): the rule that answered, and the candidates it quoted */
  via?: string;
  quoted?: Candidate[];
}

const clamp = (x: number, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, x));
const tokensOf = (s: string) => Math.ceil(s.length / 4);

function refusal(bestCoverage: number, topScore: number, note?: string): Composed {
  // low by construction: at most 0.3, lower the less the sources cover the question
  const confidence = round(clamp(0.05 + 0.3 * bestCoverage * (0.5 + 0.5 * topScore), 0, 0.3), 3);
  return { text: note ? `${NOT_FOUND_ANSWER} ${note}` : NOT_FOUND_ANSWER, citations: [], confidence, unanswered: true, promptTokens: 0, completionTokens: tokensOf(NOT_FOUND_ANSWER) };
}

/**
 * Confidence of an extractive answer: how much of the question the quoted sentences cover (in themselves,
 * and with their chunk and document), whether they hold the asked-for type, and the share of the question's
 * parts answered. A question that asks for no particular type cannot be checked that way: such answers stay
 * below 0.8.
 */
export function extractiveConfidence(picked: Candidate[], parts: Ask[], coveredParts: number): number {
  const sentence = Math.max(...picked.map((c) => c.sentenceCoverage));
  const cov = Math.max(...picked.map((c) => c.coverage));
  const typed = parts.some((p) => p.type) ? (picked.every((c) => c.typed) ? 1 : 0.6) : 0.8;
  const partShare = parts.length ? coveredParts / parts.length : 1;
  // the quoted sentence that leaves out the question's key term ("who took over from …" quoted by a sentence without "took") may be about something else
  const key = picked[0]?.keyMissing ? KEY_MISSING : 1;
  return round(clamp((0.12 + 0.48 * sentence + 0.37 * cov) * typed * key * (0.6 + 0.4 * partShare), 0.05, 0.97), 3);
}

/** the share of the confidence kept when the best quoted sentence lacks the question's key term */
const KEY_MISSING = 0.92;

/** how close a rival's score must come to the best candidate's for the two to compete */
const RIVAL_RATIO = 0.97;

/** A candidate's text as compared with another's: lower case, whitespace collapsed. */
const normText = (c: Candidate) => c.unit.text.toLowerCase().replace(/\s+/g, ' ');

/**
 * Whether the best answering candidate is a short line (a label with its value, a table row) that another
 * short line of other text matches as well: the question does not tell which value it asks for.
 */
function competing(cands: Candidate[]): boolean {
  const best = cands[0];
  const short = (c: Candidate) => (c.unit.kind === 'row' || /[:|]/.test(c.unit.text) || isLabelLine(c.unit.text)) && wordCount(c.unit.text) <= LABEL_WORDS + VALUE_WORDS;
  if (!best || !short(best)) return false;
  const b = normText(best);
  // a rival that covers less of the question in itself ("Amazon Simple Storage Service" for "Glacier storage") does not compete,
  // nor one that states the same value ("Total | $4.11" and "Charges | $4.11"), nor a line item against a total the question asks for
  const total = totalLine(best.unit.text);
  const values = amountsOf(best.unit.text);
  return cands.some(
    (c) =>
      c !== best &&
      c.score >= RIVAL_RATIO * best.score &&
      c.sentenceCoverage >= best.sentenceCoverage - 0.02 &&
      short(c) &&
      !b.includes(normText(c)) &&
      !normText(c).includes(b) &&
      !(total && !totalLine(c.unit.text)) &&
      !amountsOf(c.unit.text).some((v) => values.includes(v)),
  );
}

/** how much more of the question a sentence without the asked-for type must say itself to show the typed answer off the point */
const ON_POINT_MARGIN = 0.05;

/**
 * Whether the best typed answer lacks the question's key term while a sentence without the asked-for type has it and
 * says more of the question itself ("to whom does the trustee owe a fiduciary duty": "… a fiduciary responsibility to
 * the bankruptcy estate" against "… must advise the United States Trustee"): the sources answer otherwise than asked,
 * and the typed sentence is about something else (exported for the unit tests).
 */
export function typeMissingOnPoint(best: Candidate, all: Candidate[]): boolean {
  return best.keyMissing && all.some((c) => !c.typed && !c.keyMissing && c.sentenceCoverage >= best.sentenceCoverage + ON_POINT_MARGIN && c.coverage >= best.coverage);
}

/** the share of the best hit's score below which a hit of another document is far behind it */
const ELSEWHERE_RATIO = 0.5;

/**
 * Whether the candidate comes from a document other than the search's best hit, from a hit scored less than half as
 * well: the question's words point at the other document, which holds no answer. Not when the question names the
 * candidate's document (`named`: "the Coolblue invoice"); and the best hit is taken among the documents that have
 * the question's names (`about`: a hit elsewhere is about something else anyway). Exported for the unit tests.
 */
export function elsewhere(c: Candidate, hits: SearchHit[], named: (documentId: string) => boolean = () => false, about: (documentId: string) => boolean = () => true): boolean {
  const top = hits.filter((h) => about(h.document_id)).reduce<SearchHit | undefined>((a, h) => (!a || h.score > a.score ? h : a), undefined);
  return !!top && top.document_id !== c.hit.document_id && c.hit.score < ELSEWHERE_RATIO * top.score && !named(c.hit.document_id);
}

/** `elsewhere` for a question's candidates: its names tell the documents it names, and those it is about. */
function elsewhereFor(r: Retrieval, docTerms: DocTerms): (c: Candidate) => boolean {
  const named = (id: string) => r.ask.names.some((t) => !!docTerms.get(id)?.names(t));
  const about = holdsNames(r.ask.names, docTerms);
  return (c) => elsewhere(c, r.hits, named, about);
}

/** a quoted sentence that says less than this share of the question itself leaves open which document it is about */
const OPEN_COVERAGE = 0.5;
/** the share of the best answer's score from which another document's answer competes with it */
const RIVAL_DOCUMENT_RATIO = 0.7;

/**
 * Whether another document answers about as well as the best candidate, when that candidate's sentence says less than half
 * of the question in itself: the question's words are spread over both documents, and nothing tells which one it is about
 * ("in what year was the character sheet copyrighted": a copyright line of another document). Exported for the unit tests.
 */
export function rivalDocument(answers: Candidate[]): boolean {
  const best = answers[0];
  if (!best || best.sentenceCoverage >= OPEN_COVERAGE) return false;
  const rival = answers.find((c) => c.hit.document_id !== best.hit.document_id);
  return !!rival && rival.score >= RIVAL_DOCUMENT_RATIO * best.score;
}

/** The candidates that may be quoted: those that say enough of the question themselves, and when it asks for a type of entity, hold one (exported for the unit tests). */
export const answering = (cands: Candidate[], a: Ask) => cands.filter((c) => (!a.type || c.typed) && c.sentenceCoverage >= MIN_SENTENCE_COVERAGE);
/** a sentence that says this little of the question itself answers it only by its chunk's words: not quoted */
const MIN_SENTENCE_COVERAGE = 0.15;
const minCoverage = (a: Ask) => (a.type ? MIN_TYPED_COVERAGE : MIN_COVERAGE);

/** A unit as quoted: an ellipsis marks where the chunk cuts the sentence. */
function quote(u: Unit): string {
  const head = u.cut === 'start' || u.cut === 'both' ? '… ' : '';
  const tail = u.cut === 'end' || u.cut === 'both' ? ' …' : '';
  return `${head}${u.text}${tail}`;
}

/** Sentences of the picked candidates with their citation markers, in answer order. */
function renderSentences(picked: Candidate[], cites: CitationList): string {
  return orderPicked(picked)
    .map((c) => `${quote(c.unit)} [${cites.number(c.hit)}]`)
    .join(' ');
}

/**
 * The extractive answer (no LLM). Quick and deep answers whose confidence stays below `minConfidence`
 * (QUIRE_CHAT_MIN_CONFIDENCE) are not given: on questions nobody tuned the rules for, such answers were wrong
 * about as often as right (bench/README), and a wrong answer costs the user more than a refusal.
 */
function composeExtractive(r: Retrieval, mode: ChatMode, docTerms: DocTerms, lower: ReadonlySet<string>, minConfidence: number): Composed {
  const topScore = r.hits[0]?.score ?? 0;
  if (!r.hits.length) return refusal(0, 0);
  const cites = new CitationList();
  const all = candidatesFor(r.hits, r.ask, docTerms, lower);
  const bestCoverage = all[0]?.coverage ?? 0;
  // (`via`: the rule that refuses, for the trace)
  const refuse = (via: string): Composed => ({ ...refusal(bestCoverage, topScore), via: `none:${via}` });
  const answered = (text: string, confidence: number): Composed =>
    confidence < minConfidence ? refusal(bestCoverage, topScore) : { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text) };

  if (mode === 'code') {
    const code = composeCode(r, all, cites);
    if (code) return code;
  }

  if (mode === 'deep' && r.parts.length > 1) {
    const sections: string[] = [];
    const missing: string[] = [];
    const taken: Candidate[] = [];
    for (const part of r.parts) {
      const picked = pick(answering(candidatesFor(r.hits, part, docTerms, lower), part), part.weights, 2, taken, minCoverage(part));
      if (!picked.length) {
        missing.push(part.text);
        continue;
      }
      taken.push(...picked);
      sections.push(renderSentences(picked, cites));
    }
    if (!taken.length) return refusal(bestCoverage, topScore);
    let text = sections.join('\n\n');
    if (missing.length) text += `\n\nThe sources do not cover: ${missing.map((m) => `"${m}"`).join('; ')}.`;
    return answered(text, extractiveConfidence(taken, r.parts, r.parts.length - missing.length));
  }

  const answers = answering(all, r.ask);
  // the sentences (and table rows, under their columns' header) that say the question best: quoted whole, as a passage, when no
  // single value can be told from them; a sentence the chunk cuts is marked as cut ("… ") rather than left out
  const best = pick(answers, r.weights, mode === 'deep' ? 4 : 2, [], minCoverage(r.ask));
  const chosen = best;
  const bestConfidence = best.length ? extractiveConfidence(best, [r.ask], 1) : 0;
  // (`via`: why the passage is quoted, for the trace: the question asks for no type, no value told apart from the others, …)
  const passage = (via: string): Composed => {
    // (a row of cells with no header to name them is a fragment, never quoted: "Category | 2005 Estimate | …")
    const best = chosen.filter((c) => !(c.unit.kind === 'row' && isFragment(c.unit) && !headerOf(c.unit)));
    if (!best.length) return refuse('no-candidate');
    if (bestConfidence < minConfidence) return refuse('floor');
    // lines that say the question only by its names ("MY HAPPY PHARMACY PLT …" for who the pharmacy's cashier was) answer nothing of it
    if (best.every((c) => namesOnly(c, r.ask, docTerms))) return refuse('names-only');
    // table rows found by their row label alone, under columns none of which says the question's other words ("Nestlé Health
    // Science" under "Impairment of intangible assets" for what it sold): figures of another measure
    if (best.every((c) => offColumns(c, r.ask))) return refuse('off-columns');
    // a share quoted by a sentence without the question's key term ("what share of the volunteers were female" by shares of where
    // they worked): a share of something else
    if (r.ask.type === 'percent' && best.some((c) => c.keyMissing)) return refuse('share-without-key');
    // sentences that say nothing but the question's own words ("you can relax and look around" for what else you can do) answer nothing
    if (best.every((c) => newWords(c.unit.kind === 'row' ? quoteLabelled(c.unit) : c.unit.text, [...r.weights.keys()]) === 0)) return refuse('no-new-words');
    // (a column asked for: its header says the noun that names the kind of thing the question asks for, "which crew member …" → the
    // Crew column)
    const head = [...r.ask.kind][0];
    // (not a cell of digits for a name: the "Customer Id" code is not the customer asked for)
    const asksColumn = (header: string, cell: string) => !!head && matchOf(head, termSet(header)) > 0 && !(r.ask.type === 'person' && /\d/.test(cell));
    const text = `The documents say: ${orderPicked(best)
      .map((c) => `“${namedCell(c, r.ask, fieldHolds(r.ask, lower)) ?? quoteLabelled(c.unit, asksColumn)}” [${cites.number(c.hit)}]`)
      .join(' ')}`;
    // (a passage quotes, it does not tell which of its words is the answer: its confidence stays below 0.8)
    const confidence = Math.min(PASSAGE_MAX, bestConfidence);
    return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'passage', via: `passage:${via}`, quoted: best };
  };
  // two short label-value lines as good as each other, with different values ("Charges | $0.01", "Charges | $1.87"): no answer
  if (r.ask.type && competing(answers)) return refuse('competing');
  // the sentence that says the question best, key term and all, holds no answer of the asked type: the typed one is about something else
  if (r.ask.type && answers[0] && typeMissingOnPoint(answers[0], all)) return refuse('type-missing-on-point');
  // the search put another document far ahead of the one the answer would come from: the question is about that one
  if (answers[0] && elsewhereFor(r, docTerms)(answers[0])) return refuse('elsewhere');
  // another document answers about as well, and the best sentence says too little of the question to tell which is meant
  if (rivalDocument(answers)) return refuse('rival-document');
  if (!r.ask.type) return passage('untyped');
  // a value: ONE well-formed span of the asked type, a whole sentence, a label with its value, or one cell of a table row
  const qTerms = new Set(r.weights.keys());
  const holds = (text: string) => holdsType(text, r.ask.type!, r.ask.own, qTerms, lower);
  // (a column is named in the table's own words: the question's words themselves, not their synonyms)
  const asked = (header: string) => [...termSet(header)].filter((t) => qTerms.has(t)).length;
  const given = (cell: string) => {
    const ws = questionWords(cell);
    return ws.size > 0 && [...ws].every((w) => r.ask.own.has(w));
  };
  const spans = answers
    .flatMap((c) => {
      if (c.unit.kind !== 'row') return isFragment(c.unit) ? [] : [c];
      const cell = cellAnswer(c.unit, holds, asked, given);
      if (!cell) return [];
      // the cell's evidence is its row label, its column header and the table's title: not the other columns' headers
      const columns = new Set(c.unit.columns ?? []);
      const title = (c.unit.context ?? '')
        .split(' | ')
        .filter((x) => !columns.has(x))
        .join(' ');
      // (and the row's cells the question names: "Sheryl", "Baxter" on a customer's row)
      const named = (c.unit.cells ?? []).filter((x) => x && given(x));
      const ts = termSet(`${cell} ${title} ${named.join(' ')}`);
      const cov = coverage(r.weights, ts, termSet(c.hit.content), docTerms.get(c.hit.document_id));
      if (!cov.own) return [];
      const score = c.score * Math.min(1, cov.coverage / (c.coverage || 1));
      return [{ ...c, unit: { ...c.unit, text: cell, kind: 'sentence' as const }, terms: ts, coverage: cov.coverage, sentenceCoverage: cov.sentence, own: cov.own, score }];
    })
    .sort((a, b) => b.score - a.score || a.hitRank - b.hitRank);
  // of the two best, the one that says the focus of the question itself ("the total of the bill": a line that says "Total")
  const two = pick(spans, r.weights, 2, [], minCoverage(r.ask));
  const focus = focusTerms(r.ask.text);
  const focusOf = (c: Candidate) => (focus.length ? Math.min(...focus.map((t) => matchOf(t, c.terms))) : 0);
  const picked = two.length > 1 && focusOf(two[1]!) > focusOf(two[0]!) ? [two[1]!] : two.slice(0, 1);
  if (!picked.length || namesOnly(picked[0]!, r.ask, docTerms)) return passage('no-value');
  // a value comes from the sentences (or rows) that say the question best; one found elsewhere is not told apart from them
  if (!best.some((b) => sameUnit(b, picked[0]!))) return passage('value-elsewhere');
  // two spans that each say part of the answer, or about as good as each other (similar scores, or nothing in the question to
  // choose), or another of the best sentences holds a value of the asked type too: they are quoted, as a passage below 0.8
  // (a value is ONE sentence or cell)
  // (a word every label may say, "number", "date", tells not which: "Account number:" for the invoice's number)
  const says = (label: string | undefined) => labelSays(label, qTerms);
  // (a label printed without a colon whose label says the question's words and whose value's form fits it, "Tel. +49 6051 …" for the
  // telephone number, is told apart from the lines beside it whose labels say none of them, "UStId DE 232 446 240", or that have no
  // label, an address line with its postcode)
  const formed = labelValue(picked[0]!.unit.text);
  // (or a label line whose label says every word of the question another label says, and more, against one that says a word the
  // question does not: "Total Amt Incl GST: 53.00" for the total including GST, not "Total Amt Excl GST: 50.00")
  const told = (c: Candidate) => {
    const rival = labelValue(c.unit.text)?.label;
    return (!!formed?.form && says(formed.label) && !says(rival)) || qualifiedOtherwise(formed?.label, rival, qTerms);
  };
  if (two.length > 1 && !told(two.find((c) => !sameUnit(c, picked[0]!))!) && (focusOf(two[1]!) === focusOf(two[0]!) || two[1]!.score >= AMBIGUOUS * two[0]!.score)) return passage('two-values');
  if (best.some((b) => !sameUnit(b, picked[0]!) && b.typed && !told(b))) return passage('typed-rival');
  // (confident, ≥ 0.8, only when the value's label says the question's words, the business labels of other languages included)
  // (a label printed without a colon, "IBAN DE30 …", "Tel. +49 …", whose value's form fits it, is a label too)
  const label = /^(.{1,120}?):\s/.exec(picked[0]!.unit.text)?.[1] ?? formed?.label;
  const labelled = says(label);
  // (a sentence with no label is confident only when its span's form is checked, a date, a sum, a count, an address: a name, a
  // place or a thing in a sentence is told by the words around it alone, as a passage is)
  const confident = label ? labelled : FORMED_TYPES.has(r.ask.type);
  const confidence = confident ? extractiveConfidence(picked, [r.ask], 1) : Math.min(PASSAGE_MAX, extractiveConfidence(picked, [r.ask], 1));
  if (confidence < minConfidence) return passage('value-low');
  const text = renderSentences(picked, cites);
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'value', via: 'value', quoted: picked };
}

/** the least share of the question the passage's first sentence must say itself, and with its chunk and document */
const EVIDENCE_SENTENCE = 0.3;
const EVIDENCE_COVERAGE = 0.5;
/** the least score of the passage's first sentence, and the share of it the next sentence must stay under to leave it ahead */
const EVIDENCE_SCORE = 0.55;
const EVIDENCE_MARGIN = 0.95;
/** the share of the first sentence's score from which the next sentence of its document is quoted with it */
const EVIDENCE_SECOND = 0.75;
/** the least share of the question a sentence without its key term must say itself, and the least number of its words it says */
const EVIDENCE_PARAPHRASE = 0.5;
const EVIDENCE_OWN = 2;
/** how a whole sentence ends */
const SENTENCE_END = /[.!?]["'”’)]?$/;
/** the least number of the sentence's words that are not the question's: a sentence that only restates the question answers nothing */
const EVIDENCE_NEW_WORDS = 3;
/** a line of fewer words than this without end punctuation is a heading or a title, not a sentence */
const EVIDENCE_LINE_WORDS = 5;
/** the confidence of an evidence passage: from EVIDENCE_BASE, rising with the sentence's score, always below 0.8 */
const EVIDENCE_BASE = 0.6;

/** a short line with no end punctuation that is not a label with its value is a heading or a title ("Question Format Abbreviations") */
const titleLike = (u: Unit) => wordCount(u.text) < EVIDENCE_LINE_WORDS && !/[.!?"”)]$/.test(u.text) && !isLabelLine(u.text);

/** The words of a sentence that none of the question's terms matches (stem, synonym or compound). */
function newWords(text: string, qTerms: string[]): number {
  return terms(text).filter((x) => {
    const one = new Set([x]);
    return !qTerms.some((t) => matchOf(t, one) > 0);
  }).length;
}

/**
 * Where the value rules refuse: the sentence that says the question best, quoted whole with its citation as a passage
 * ("The documents say: …"), when retrieval is confident in it: a whole sentence (never a table row, a cut or broken-off
 * line, a bare number), holding an answer of the asked type when the question asks for one, that says enough of the
 * question itself and with its chunk, the question's key term included (or, when its document never writes the key term, at
 * least half of the question itself: it says the key term otherwise), clearly ahead of the next sentence, and that says
 * something besides the question's own words. The next sentence of the same document is quoted with it when it scores
 * nearly as well (at most two). Its confidence reflects the retrieval and stays below 0.8: a passage quotes, it does not
 * tell which of its words is the answer. Null when no sentence qualifies.
 */
function composeEvidencePassage(r: Retrieval, docTerms: DocTerms, lower: ReadonlySet<string>, minConfidence: number): Composed | null {
  if (!r.hits.length) return null;
  const whole = candidatesFor(r.hits, r.ask, docTerms, lower).filter((c) => c.unit.kind !== 'row' && !isFragment(c.unit) && !titleLike(c.unit));
  const first = whole[0];
  if (!first) return null;
  const second = whole[1];
  const qTerms = [...r.weights.keys()];
  if (first.sentenceCoverage < EVIDENCE_SENTENCE || first.coverage < EVIDENCE_COVERAGE || first.score < EVIDENCE_SCORE) return null;
  // (a question that asks for a type of answer is answered only by a sentence that holds one: the value rules' type checks stand)
  // (a sentence without the question's key term whose document never writes it, only another does, may say it in other words, "was
  // made into a movie" for when it reached cinemas: it is quoted when it says at least half of the question itself, by EVIDENCE_OWN of
  // its words at least, and is a sentence that ends as one ends: a line without its end, a title, a list of authors, a slide's bullet,
  // says the question's words without saying anything of them; a document that writes the key term elsewhere says it there, about
  // what the question asks; nor is a share, as the passage rule has it: a share quoted without the key term is of something else)
  const paraphrased = r.ask.type !== 'percent' && !first.keyInDocument && SENTENCE_END.test(first.unit.text) && first.sentenceCoverage >= EVIDENCE_PARAPHRASE && first.own >= EVIDENCE_OWN;
  // (nor does a sentence that refers back to the one before it, which says the key term: "These ducks may be contaminated by …" after
  // "Ducks are hunted …", for what hunted ducks may carry)
  // (a question for one of a kind by its noun alone, "which credit derivative instrument …", takes a sentence that says the kind
  // without a proper name in it: the documents may name the thing in common words, "credit default swaps … instrument")
  const kindSaid = r.ask.type === 'person' && r.ask.oneOfAKind && r.ask.kind.size > 0 && [...r.ask.kind].every((t) => matchOf(t, first.terms) > 0);
  if ((r.ask.type && !first.typed && !kindSaid) || (first.keyMissing && !paraphrased && !first.keyBefore) || (second && second.score >= EVIDENCE_MARGIN * first.score)) return null;
  if (newWords(first.unit.text, qTerms) < EVIDENCE_NEW_WORDS || namesOnly(first, r.ask, docTerms)) return null;
  const picked = [first];
  if (second && second.hit.document_id === first.hit.document_id && second.score >= EVIDENCE_SECOND * first.score) picked.push(second);
  const confidence = round(clamp(EVIDENCE_BASE + 0.5 * (first.score - EVIDENCE_SCORE), EVIDENCE_BASE, PASSAGE_MAX), 3);
  if (confidence < minConfidence) return null;
  const cites = new CitationList();
  const text = `The documents say: ${orderPicked(picked)
    .map((c) => `“${c.unit.text}” [${cites.number(c.hit)}]`)
    .join(' ')}`;
  const via = !first.keyMissing ? 'evidence' : first.keyBefore ? 'evidence:key-before' : 'evidence:paraphrased';
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'passage', via, quoted: picked };
}

/** a question asks for a date by its first words ("when…", "on what date…"), not by a clause of time after what it asks */
const DATE_ASKED = /^\W*(?:[\p{L}'’-]+\s+){0,3}(?:when|date|day|month|time|deadline|decade|period|century|season)\b/iu;
/** a question asks for a percentage by the word, not by one it names ("the 1 percent rule") */
const PERCENT_ASKED = /(?<!\d\s?)\bper\s*cent(?:age)?\b|\b(?:proportion|share|rate)\b/i;
/** the asked types whose form the check of a span tells (a date, a figure with its unit, an address): a name may be anyone's */
const FORMED_TYPES: ReadonlySet<AnswerType> = new Set(['date', 'year', 'weekday', 'money', 'amount', 'number', 'percent', 'measure', 'web', 'identifier']);
/** how many of the best whole sentences are looked through for the first that can answer */
const ANSWERING_DEPTH = 8;
/** the least number of the question's terms the sentence says itself */
const ANSWERING_OWN = 2;
/** a candidate that can answer as well and scores at least this share of the sentence's leaves the question open */
const ANSWERING_RIVAL = 0.9;

/**
 * Where every other rule refuses a question that asks for a type of answer (the record field's included): the best whole
 * sentence that CAN answer it, looked for past those ahead of it that cannot (they say the question's words but hold no span of
 * the asked type, or lack its key term), quoted whole with its citation as a passage ("The documents say: …"). It can answer
 * when it holds the asked type and says the question's key term, whatever the type (a sentence with a date or a figure that
 * says the question's other words but not its key term is most often about something else: the year another thing began). It
 * says enough of the question itself and with its chunk (as the evidence passage), something besides the question's own words, and not the question's names alone; the sentences ahead of it are of its own document
 * (else the question's words point at another), and one taken over them says one of the question's names itself; no other
 * candidate that can answer (a row or a cut sentence included) with other words scores ≥ 0.9 of it. Confidence as the
 * evidence passage's, below 0.8: a passage quotes, it does not tell which of its words is the answer. Null when none.
 */
function composeAnsweringSentence(r: Retrieval, docTerms: DocTerms, lower: ReadonlySet<string>, minConfidence: number): Composed | null {
  const type = r.ask.type;
  if (!r.hits.length || !type) return null;
  if ((type === 'date' && !DATE_ASKED.test(r.ask.text)) || (type === 'percent' && !PERCENT_ASKED.test(r.ask.text))) return null;
  const all = candidatesFor(r.hits, r.ask, docTerms, lower);
  const whole = all.filter((c) => c.unit.kind !== 'row' && !isFragment(c.unit) && !titleLike(c.unit)).slice(0, ANSWERING_DEPTH);
  const can = (c: Candidate) => c.typed && !c.keyMissing;
  const i = whole.findIndex(can);
  if (i < 0) return null;
  const first = whole[i]!;
  if (first.sentenceCoverage < EVIDENCE_SENTENCE || first.coverage < EVIDENCE_COVERAGE || first.score < EVIDENCE_SCORE) return null;
  // (it says two words of the question itself at least: "the old lighthouse at the harbour was built in 1887" says only "harbour"
  // of when the harbour survey's sampling started, the rest of its share is the words of its document's name)
  if (first.own < ANSWERING_OWN) return null;
  if (newWords(first.unit.text, [...r.weights.keys()]) < EVIDENCE_NEW_WORDS || namesOnly(first, r.ask, docTerms)) return null;
  if (whole.slice(0, i).some((c) => c.hit.document_id !== first.hit.document_id)) return null;
  // (a sentence taken over those ahead of it says, itself, what the question is about: one of its names, if it has some)
  const doc = docTerms.get(first.hit.document_id);
  const subject = r.ask.names.filter((t) => !/\d/.test(t) && !doc?.names(t));
  if (i > 0 && subject.length && !subject.some((t) => matchOf(t, first.terms) > 0)) return null;
  if (elsewhereFor(r, docTerms)(first)) return null;
  // (the same sentence found again, in another chunk or as a part of a longer one, is no rival)
  const same = (c: Candidate) => normText(c).includes(normText(first)) || normText(first).includes(normText(c));
  if (all.some((c) => c !== first && can(c) && !same(c) && c.score >= ANSWERING_RIVAL * first.score)) return null;
  const confidence = round(clamp(EVIDENCE_BASE + 0.5 * (first.score - EVIDENCE_SCORE), EVIDENCE_BASE, PASSAGE_MAX), 3);
  if (confidence < minConfidence) return null;
  const cites = new CitationList();
  const text = `The documents say: “${first.unit.text}” [${cites.number(first.hit)}]`;
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'passage', via: i > 0 ? 'answering:past-best' : 'answering', quoted: [first] };
}

/** A field of a record: a table row's cell under its column's header, or the value of a label line ("Invoice No: 4711"). */
interface Field {
  c: Candidate;
  /** the words that name the value: the row's label and the column's header, or the line's label */
  names: Set<string>;
  /** a cell's row label's words, or a label line's */
  label: Set<string>;
  /** a cell's column header's words (none for a label line) */
  header: Set<string>;
  value: string;
  /** as quoted: "Zone EUR (of which restructuring costs): -140", "GST payable (6%): 0.13" */
  text: string;
}

/** a cell that says no value: a dash, a blank */
const NO_VALUE = /^[-–—.\s]*$/;
/** a figure as tables print it, without its unit ("100 000", "-140", "(3.2)") */
const BARE_FIGURE = /^[-+−(]?\d[\d\s.,]*\)?$/;

/**
 * The fields of a candidate: each filled cell of a table row under its header, named by the row's label (when the question
 * says a word of the label and another of the header, "the restructuring costs of Zone EUR"), or a short label line's value.
 */
function fieldsOf(c: Candidate, qTerms: Set<string>, question: string): Field[] {
  const u = c.unit;
  // (a label or a header that is a figure, "1.4", "2008–09", is said by the question only whole: "4.0" says no "1.4")
  const says = (text: string) => (FIGURE_CELL.test(text.trim()) && !figureIn(text.trim(), question) ? [] : [...termSet(text)].filter((t) => [...qTerms].some((q) => matchOf(q, new Set([t])) > 0)));
  if (u.kind === 'row') {
    const header = headerOf(u);
    if (!header) return [];
    const { cells, first, label } = rowLabelOf(u);
    const byLabel = says(label);
    if (!byLabel.length) return [];
    // (a figure under a blank header: the header does not name the row's columns, "Actual 2003–04 to 2008–09 2008–09 to 2015–16"
    // printed as one cell over four columns of figures)
    if (cells.some((x, j) => j > first && x.trim() && !NO_VALUE.test(x) && !header[j]?.trim())) return [];
    return cells.flatMap((x, j) => {
      const head = header[j]?.trim() ?? '';
      if (j <= first || NO_VALUE.test(x) || !head || head === label) return [];
      // (the header says a word of the question the label does not: the question names the column too)
      if (!says(head).some((t) => !byLabel.includes(t))) return [];
      return [{ c, names: termSet(`${label} ${head}`), label: termSet(label), header: termSet(head), value: x.trim(), text: cellQuote(label, head, x.trim()) }];
    });
  }
  const m = labelValue(u.text);
  if (!m || u.cut || wordCount(u.text) > LABEL_WORDS + VALUE_WORDS || NO_VALUE.test(m.value)) return [];
  // (a label printed without a colon is a field of the question only when it says the question's words: "USt-IdNr." says "number",
  // as every label may, and not "telephone")
  if (m.form && !labelSays(m.label, qTerms)) return [];
  return [{ c, names: termSet(m.label), label: termSet(m.label), header: new Set<string>(), value: m.value, text: u.text }];
}

/** a cell or a header that is a figure alone: "1.4", "0.95", "2008–09", "Q1 2007" is not */
const FIGURE_CELL = /^[-+−]?\d[\d\s.,/–-]*%?$/u;
/** Whether a question prints a figure whole (not inside a longer one: "1.4" is not in "11.4" nor in "1.45"). */
function figureIn(figure: string, question: string): boolean {
  const esc = figure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s*');
  return new RegExp(`(?<![\\d.,])${esc}(?![\\d]|[.,]\\d)`, 'u').test(question);
}

/**
 * The one cell of a table row whose column's header says the question best (the words its row's label does not say), quoted
 * with its names ("Methane (CH4) (to air): 100 000" for the threshold of methane released to air): a row of cells is quoted
 * as that cell alone. Null for any other unit, or when no header, or more than one, says the question best.
 */
function namedCell(c: Candidate, a: Ask, holds: (value: string) => boolean): string | null {
  if (c.unit.kind !== 'row') return null;
  const fields = fieldsOf(c, new Set(a.weights.keys()), a.text).map((f) => {
    // (the question's words the row's label says do not tell its columns apart: "Total" against "of which restructuring costs")
    let w = 0;
    for (const [t, x] of a.weights) if (!matchOf(t, f.label)) w += matchOf(t, f.header) * x;
    // (a question of a kind of thing, "on which marketplace …", is answered under the column that names it, or by the whole row)
    return { f, w: a.kind.size && ![...a.kind].some((t) => matchOf(t, f.names) > 0) ? 0 : w };
  });
  const best = fields.reduce<(typeof fields)[number] | undefined>((a, x) => (!a || x.w > a.w ? x : a), undefined);
  // (the cell holds the asked type: "how long did they take" is not answered by the column of ballots completed)
  return best && best.w > 0 && fields.every((x) => x === best || x.w < best.w) && holds(best.f.value) ? best.f.text : null;
}

/**
 * Whether a field's value holds the type the question asks for; a figure may be bare for a sum, an amount or a count (tables
 * print them without their unit), not for a share or a measure, whose unit says what it is.
 */
function fieldHolds(a: Ask, lower: ReadonlySet<string>): (value: string) => boolean {
  const qTerms = new Set(a.weights.keys());
  const type = a.type;
  return (value) => !type || holdsType(value, type, a.own, qTerms, lower) || (BARE_TYPES.has(type) && BARE_FIGURE.test(value));
}
const BARE_TYPES: ReadonlySet<AnswerType> = new Set(['money', 'amount', 'number']);
/** a label that names a code, in English or as German and Dutch compounds write it ("Ordernummer", "Kundennr."): its figure is no sum, amount or count */
const CODE_LABEL = /(?:number|nummer|nr\.?|no\.?|id|code)$/i;

/** The noun a "how many" question counts, as a term: its first plural word ("how many bovine meat samples" → sample), else its first word. */
function countedHead(question: string): string | null {
  const ws = countedWords(question);
  const head = ws.find((w) => /[^s]s$/i.test(w)) ?? ws[0];
  return head ? (terms(head)[0] ?? null) : null;
}

/** the least share of the question (by weight, less the words that name the document) a field's names must say */
const FIELD_NAMED = 0.4;
/** a second field named at least this share as well as the best, with another value, leaves the question open */
const FIELD_RIVAL = 0.97;

/**
 * Where the other rules refuse: the ONE field of a record that the question names, a table's cell under the row and the
 * column the question says ("What were the restructuring costs of Zone EUR?" → "Zone EUR (of which restructuring costs): -140"),
 * or a label line whose label says the question best ("How much GST was payable?" → "GST payable (6%): 0.13"). The value
 * holds the asked type (a figure may be bare: tables print it without its unit), no other field is named about as well with
 * another value, and the line has the question's key term. A value when the question asks for a type, else a passage; below
 * 0.8 either way (the field is chosen by its names alone). Null when no field qualifies.
 */
function composeField(r: Retrieval, docTerms: DocTerms, lower: ReadonlySet<string>, minConfidence: number): Composed | null {
  if (!r.hits.length) return null;
  const qTerms = new Set(r.weights.keys());
  const all = candidatesFor(r.hits, r.ask, docTerms, lower);
  const type = r.ask.type;
  const holds = fieldHolds(r.ask, lower);
  // "how many data sets": the field names what it counts (its plural noun), not only the question's other words ("States offering
  // open data sites (Sept. 30, 2011): 29")
  const counted = type === 'number' ? countedHead(r.ask.text) : null;
  const away = elsewhereFor(r, docTerms);
  const scored = all
    .filter((c) => !c.keyMissing && c.coverage >= MIN_COVERAGE && !away(c))
    .flatMap((c) => fieldsOf(c, qTerms, r.ask.text))
    .filter((f) => (holds(f.value) || sharePrinted(f, type)) && ![...questionWords(f.value)].every((w) => r.ask.own.has(w)))
    // (a figure under a label of a code, "Ordernummer: 12572103", is no sum: its unit does not say so, its label says otherwise)
    .filter((f) => !(type && BARE_TYPES.has(type) && BARE_FIGURE.test(f.value) && CODE_LABEL.test(namingOf(f).replace(/[\s:()]+$/, ''))))
    .filter((f) => !counted || matchOf(counted, new Set([...f.names, ...termSet(f.c.unit.context ?? '')])) > 0)
    .map((f) => {
      // (the words that name the field's document tell which document, not which field)
      // (nor do the question's names the field does not say, "the 99 Speed Mart receipt from Klang": its document or its chunk does)
      // (a cell of a table is named by its table's caption too, "2007 (Total)" of "Table 3 - European ABCP issuance"; `own`: what
      // its row and column say alone, since a caption tells the tables of one document apart, not documents)
      const doc = docTerms.get(f.c.hit.document_id);
      const names = f.c.unit.title ? new Set([...f.names, ...termSet(f.c.unit.title)]) : f.names;
      let total = 0;
      let got = 0;
      let own = 0;
      for (const [t, w] of r.weights) {
        const m = matchOf(t, names);
        if (doc?.names(t) || (!m && r.ask.names.includes(t))) continue;
        total += w;
        got += m * w;
        own += matchOf(t, f.names) * w;
      }
      return { f, got, own, share: total ? got / total : 0 };
    })
    .sort((a, b) => b.got - a.got || b.f.c.score - a.f.c.score);
  const best = scored[0];
  if (!best || best.share < FIELD_NAMED) return null;
  const norm = (s: string) => s.replace(/\s+/g, '');
  const rival = (x: (typeof scored)[number]) => (x.f.c.hit.document_id === best.f.c.hit.document_id ? x.got >= FIELD_RIVAL * best.got : x.own >= FIELD_RIVAL * best.own);
  if (scored.some((x) => rival(x) && norm(x.f.value) !== norm(best.f.value))) return null;
  const confidence = round(clamp(EVIDENCE_BASE + 0.3 * best.share, EVIDENCE_BASE, PASSAGE_MAX), 3);
  if (confidence < minConfidence) return null;
  const cites = new CitationList();
  const n = cites.number(best.f.c.hit);
  const text = type ? `${best.f.text} [${n}]` : `The documents say: “${best.f.text}” [${n}]`;
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: type ? 'value' : 'passage', via: 'field', quoted: [best.f.c] };
}

/** words that ask for a sum, a share or a measure: they name what the cell measures, not the row */
const TYPE_ASKING = /\b(?:costs?|price[ds]?|charged?|charges|paid|pay|payable|spent|spend|worth|owed?|due|fees?|bill(?:ed)?|totals?|amounts?|sums?|percent(?:age)?s?|per\s?cent|shares?|proportions?|rates?|ratios?|long|far|tall|high|heavy|wide|deep|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/gi;

/** the asked types a table prints with their mark in the cell: a share with "%", a sum with its currency, a measure with its unit */
const MARKED_TYPES: ReadonlySet<AnswerType> = new Set(['percent', 'money', 'measure']);

/**
 * Where the other rules refuse: the one cell of a table row that prints the asked type with its mark, in the row the question names
 * by its label ("What percentage is reported for the Northgate station?" → "Northgate (Punctuality): 85.0%"). The mark tells the
 * column when the question does not name it ("percentage" for the one cell with "%"). Null when the row has no such cell or several
 * with other values, when another row is named as well with another value, or when the question asks for a type tables print as bare
 * figures (a count: "48" and "30.2" are both figures), or when the row named best lacks the question's key term. A value, below 0.8
 * (the cell is chosen by its row's label and its form).
 */
function composeTypedCell(r: Retrieval, docTerms: DocTerms, lower: ReadonlySet<string>, minConfidence: number): Composed | null {
  const type = r.ask.type;
  if (!type || !MARKED_TYPES.has(type) || !r.hits.length) return null;
  const qTerms = new Set(r.weights.keys());
  const away = elsewhereFor(r, docTerms);
  const norm = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  // (the words that ask for the type name the measure, not the row: "what did the game cost" is not the row "Totaal")
  const asking = termSet((r.ask.text.match(TYPE_ASKING) ?? []).join(' '));
  const rows = candidatesFor(r.hits, r.ask, docTerms, lower)
    .filter((c) => c.unit.kind === 'row' && c.coverage >= MIN_TYPED_COVERAGE && !away(c))
    .flatMap((c) => {
      const { cells, first, label } = rowLabelOf(c.unit);
      // (a label that is a figure, "2010", names the row only when the question prints it whole)
      if (!label || (FIGURE_CELL.test(label) && !figureIn(label, r.ask.text))) return [];
      // (a label that prints a value of the type is no label: the row is a run of values, "Exclusief BTW € 593,36 Subtotaal")
      if (printsTypeMark(label, type, r.ask.own, qTerms)) return [];
      // the question's words the label says, less the document's names (they tell which document) and words every label says
      const doc = docTerms.get(c.hit.document_id);
      const labelTerms = termSet(label);
      let said = 0;
      for (const [t, w] of r.weights) if (!doc?.names(t) && !GENERIC_LABEL.has(t) && !asking.has(t) && matchOf(t, labelTerms) > 0) said += w;
      if (!said) return [];
      const marked = cells.flatMap((x, j) => (j > first && printsTypeMark(x, type, r.ask.own, qTerms) ? [j] : []));
      if (!marked.length || new Set(marked.map((j) => norm(cells[j]!))).size > 1) return [];
      const j = marked[0]!;
      const head = headerOf(c.unit)?.[j]?.trim();
      const value = cells[j]!.trim();
      return [{ c, said, value: norm(value), text: cellQuote(label, head !== label ? head : undefined, value) }];
    })
    .sort((a, b) => b.said - a.said || b.c.score - a.c.score);
  // (the row named best says the question's key term, in its cells or its header: "Amazon Glacier | $2.22" says not "storage", and
  // leaves the question to no row, not to "Amazon Simple Storage Service | $0.01", named less)
  const best = rows[0];
  if (!best || best.c.keyMissing) return null;
  if (rows.some((x) => x.said >= FIELD_RIVAL * best.said && x.value !== best.value)) return null;
  const confidence = round(clamp(EVIDENCE_BASE + 0.3 * (best.c.coverage - MIN_TYPED_COVERAGE) / (1 - MIN_TYPED_COVERAGE), EVIDENCE_BASE, PASSAGE_MAX), 3);
  if (confidence < minConfidence) return null;
  const cites = new CitationList();
  const text = `${best.text} [${cites.number(best.c.hit)}]`;
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'value', via: 'typed-cell', quoted: [best.c] };
}

/** words of a column or a table that prints shares as bare figures ("Own brands market share", "% of Total Turnover") */
const SHARE_WORDS = /%|\b(?:percent(?:age)?s?|per\s?cent|shares?|proportions?|rates?|ratios?|prozent|anteile?|pourcentages?|parts?)\b/iu;

/**
 * Whether a bare figure answers a question for a share because its column's header or its table's caption says the figures are
 * shares: "Franprix (Own brands market share): 28.0".
 */
function sharePrinted(f: Field, type: AnswerType | null | undefined): boolean {
  if (type !== 'percent' || !BARE_FIGURE.test(f.value)) return false;
  return SHARE_WORDS.test(namingOf(f)) || SHARE_WORDS.test(f.c.unit.title ?? '');
}

/** What a field's text says before its value: the label, or the row's label and the column's header ("Franprix (Own brands market share): "). */
const namingOf = (f: Field) => f.text.slice(0, f.text.lastIndexOf(f.value));

/** the asked types that tables print as figures under their measures' columns */
const MEASURES: ReadonlySet<AnswerType> = new Set(['money', 'amount', 'number', 'percent', 'measure']);

/** words that any label may say ("Account number", "Invoice date"): they do not tell which label the question means */
const GENERIC_LABEL = new Set(terms('number no nr date name amount value code id'));

/** Whether a label says a word of the question, or a synonym of one, other than a word every label may say. */
const labelSays = (label: string | undefined, qTerms: ReadonlySet<string>) =>
  !!label && [...termSet(label)].some((t) => !GENERIC_LABEL.has(t) && hasName(qTerms, t));

/**
 * Whether a rival label line is about something else than the picked one: the question's words the rival's label says are
 * some of those the picked label says, not all, and the rival's label says a word the question does not ("Total Amt Excl GST"
 * against "Total Amt Incl GST" for the total including GST; "Total" against "Total Amount" tells nothing: it says no other word).
 */
function qualifiedOtherwise(picked: string | undefined, rival: string | undefined, qTerms: ReadonlySet<string>): boolean {
  if (!picked || !rival) return false;
  const inQuestion = (t: string) => hasName(qTerms, t);
  const p = termSet(picked);
  const r = termSet(rival);
  const rq = [...r].filter(inQuestion);
  return rq.every((t) => p.has(t)) && [...p].some((t) => inQuestion(t) && !r.has(t)) && [...r].some((t) => !inQuestion(t) && !GENERIC_LABEL.has(t));
}

/** the asked types a value of each checked form answers */
const FORM_ANSWERS: Partial<Record<LabelForm, AnswerType[]>> = {
  iban: ['identifier'],
  bic: ['identifier'],
  phone: ['identifier'],
  code: ['identifier'],
  email: ['web'],
  date: ['date'],
  amount: ['money', 'amount'],
};

/**
 * Whether a unit says the question by its names alone ("My Happy Pharmacy", "Mydin Mart"): none of its other words ("cashier",
 * "change"). False when the question has no names, or no other words.
 */
function namesOnly(c: Candidate, a: Ask, docTerms: DocTerms): boolean {
  // (a place is said by an address line that names its subject and no more: "QualityHosting AG - Uferweg 40-42 - … Gelnhausen";
  // a table's cell by its column, "Roy Berry (Subscription Date): 2020-03-25")
  if (a.type === 'place' || c.unit.columns) return false;
  // (the names of the line's own document, "the Coolblue order", tell which document, not which line)
  const doc = docTerms.get(c.hit.document_id);
  const names = a.names.filter((t) => !doc?.names(t));
  const other = [...a.primary].filter((t) => !a.names.includes(t) && !GENERIC_LABEL.has(t));
  if (!names.length || !other.length) return false;
  return names.some((t) => matchOf(t, c.terms) > 0) && !other.some((t) => matchOf(t, c.terms) > 0);
}

/**
 * Whether a table row under its columns' header says the question only by its row label: none of its other cells, nor the
 * headers of its filled cells, says a word of the question that the label does not. False for any other unit, and for a row with no header.
 */
function offColumns(c: Candidate, a: Ask): boolean {
  // (figures are what tables print under measures' columns: a place or a name is told by its row, "6480 Cameron Street …")
  if (!a.type || !MEASURES.has(a.type)) return false;
  const weights = a.weights;
  const u = c.unit;
  const header = headerOf(u);
  if (!header) return false;
  const row = rowLabelOf(u);
  const { cells, first } = row;
  const label = termSet(row.label);
  // (the label names the question's subject, "Nestlé Health Science": a label that is a measure itself, "Totaal" for what the order
  // cost altogether, is not found by its label alone)
  if (![...a.names].some((t) => !/\d/.test(t) && matchOf(t, label) > 0)) return false;
  // the question's words the label leaves to the columns (not its names, not a word every label says): none, when the label is
  // the measure itself ("Rechnungsnr." for the invoice's number)
  const left = [...weights.keys()].filter((t) => !matchOf(t, label) && !a.names.includes(t) && !GENERIC_LABEL.has(t));
  if (!left.length) return false;
  // (the row's other cells may say it too: "Bank: Salzburger Sparkasse" under "Bankverbindung:")
  const rest = termSet(header.flatMap((h, j) => (j > first && cells[j]?.trim() ? [h, cells[j]!] : [])).join(' '));
  return !left.some((t) => matchOf(t, rest) > 0);
}

/** a second span scoring at least this share of the first's is as good as it: both are quoted, as a passage */
const AMBIGUOUS = 0.9;

/** A table row's cells (as the unit gives them, else split from its text). */
const cellsOf = (u: Unit) => u.cells ?? u.text.split(' | ');

/** A table row's cells, the index of its first filled cell, and that cell trimmed: the row's label. */
function rowLabelOf(u: Unit): { cells: string[]; first: number; label: string } {
  const cells = cellsOf(u);
  const first = cells.findIndex((x) => x.trim());
  return { cells, first, label: cells[first]?.trim() ?? '' };
}

/** A cell quoted with its names: "Zone EUR (of which restructuring costs): -140", or "Amazon Glacier: $2.22" under no header. */
const cellQuote = (label: string, head: string | undefined, value: string) => (head ? `${label} (${head}): ${value}` : `${label}: ${value}`);

/** The header of a table row, a cell for each of its cells (its columns, or the header row above it); null for other units. */
function headerOf(u: Unit): string[] | null {
  if (u.kind !== 'row') return null;
  const cells = cellsOf(u);
  const header = u.columns && u.columns.length === cells.length ? u.columns : u.context && u.context !== u.text ? u.context.split(' | ') : null;
  return header && header.length === cells.length ? header : null;
}

/** A unit as quoted in a passage: a table row under its columns' header ("Name | Amount — Sheryl | 45"), a cut sentence marked. */
function quoteLabelled(u: Unit, named: (header: string, cell: string) => boolean = () => false): string {
  const header = headerOf(u);
  if (!header) return quote(u);
  // each cell under its column's header, after the row's label: "Students enrolled (2011–12): 18,300; … (2015–16): 19,950"
  const { cells, first, label } = rowLabelOf(u);
  // (only the cells under the columns the question asks for, when it asks for some: "which crew member …" → the Crew column's cell)
  const asked = cells.map((c, j) => j > first && !!c.trim() && !!header[j]?.trim() && named(header[j]!, c.trim()));
  const keep = (j: number) => !asked.some(Boolean) || asked[j];
  const labelled = cells.flatMap((c, j) => (j > first && c.trim() && keep(j) ? [cellQuote(label, header[j]?.trim(), c.trim())] : []));
  return labelled.length ? labelled.join('; ') : quote(u);
}

/** a passage's confidence stays below this: it quotes, it does not tell which value is the answer */
const PASSAGE_MAX = 0.79;

/** how many chunks from a document's start make its first section, and at most how many words its title has */
const FIRST_CHUNKS = 3;
/** the share of a document-level answer's confidence kept when the document is the search's first, not one the question names */
const DOCUMENT_GUESSED = 0.75;
const TITLE_WORDS = 20;

/**
 * A question about a document as a whole (its title, date, author, what it is about), answered from its title and first
 * section: the document the question names by words of its name, else the knowledge base's only document, else the one
 * the search found first when the question says more than the aspect it asks. Null when no document is meant or its
 * start does not say (the usual answerer then tries).
 */
async function composeDocumentLevel(read: AnswerRequest['chunks'], aspect: DocumentAspect, question: string, docs: AnswerDocument[], docTerms: DocTerms, r: Retrieval): Promise<Composed | null> {
  // the question's words other than those that ask for the aspect ("the title of this report"): they may name the document
  const own = terms(
    question
      .split(/\s+/)
      .filter((w) => !DOCUMENT_WORDS.test(w.replace(/[^\p{L}]/gu, '')))
      .join(' '),
  );
  const naming = docs.map((d) => ({ d, n: own.filter((t) => !!docTerms.get(d.id)?.names(t)).length })).filter((x) => x.n > 0).sort((a, b) => b.n - a.n);
  const named = !!naming[0] && naming[0].n > (naming[1]?.n ?? 0);
  const doc = named ? naming[0]!.d : docs.length === 1 ? docs[0] : own.length && r.hits[0] ? docs.find((d) => d.id === r.hits[0]!.document_id) : undefined;
  if (!doc) return null;
  // confident only when nothing else may be meant: the question names the document, or the knowledge base has no other
  const sure = named || docs.length === 1 ? 1 : DOCUMENT_GUESSED;
  const rows: AnswerChunk[] = (await read(doc.id, Array.from({ length: FIRST_CHUNKS }, (_, i) => i))).sort((a, b) => a.idx - b.idx);
  if (!rows.length) return null;
  const units = rows.flatMap((row) => unitsOf(row.content).map((u) => ({ u, row })));
  // the first section: up to the second heading
  const headings = units.filter((x) => x.u.kind === 'heading');
  const end = headings[1] ? units.indexOf(headings[1]) : units.length;
  const first = units.slice(0, end);
  const titleUnit = headings[0] && units.indexOf(headings[0]) <= 2 ? headings[0] : first.find((x) => x.u.kind !== 'row' && wordCount(x.u.text) <= TITLE_WORDS && !/[.,;:]$/.test(x.u.text));
  const cites = new CitationList();
  const hit = (row: (typeof rows)[number]): SearchHit => ({ chunk_id: row.id, document_id: doc.id, document_name: doc.name, page: row.page, content: row.content, score: 1, metadata: { type: row.type, index: row.idx } });
  const composed = (text: string, confidence: number, answerType: AnswerKind): Composed => ({ text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType, via: `document:${aspect}` });
  const sentences = first.filter((x) => x.u.kind === 'sentence' && x !== titleUnit && !isFragment(x.u));
  switch (aspect) {
    case 'title':
      return titleUnit ? composed(`${titleUnit.u.text} [${cites.number(hit(titleUnit.row))}]`, round(0.85 * sure, 3), 'value') : null;
    case 'author': {
      const by = first.find((x) => AUTHOR_LINE.test(x.u.text) && wordCount(x.u.text) <= TITLE_WORDS);
      return by ? composed(`${by.u.text} [${cites.number(hit(by.row))}]`, round(0.8 * sure, 3), 'value') : null;
    }
    case 'date': {
      const dated = first.find((x) => x.u.kind !== 'row' && !isFragment(x.u) && holdsFullDate(x.u.text));
      return dated ? composed(`${dated.u.text} [${cites.number(hit(dated.row))}]`, round(0.8 * sure, 3), 'value') : null;
    }
    case 'about': {
      const quoted = [...(titleUnit ? [titleUnit] : []), ...sentences.slice(0, 2)];
      if (!sentences.length) return null;
      return composed(`The documents say: ${quoted.map((x) => `“${x.u.text}” [${cites.number(hit(x.row))}]`).join(' ')}`, round(0.7 * sure, 3), 'passage');
    }
  }
}

/** A chunk the answerer read itself, as a source it may cite. */
const sourceOf = (row: AnswerChunk, doc: AnswerDocument): SearchHit => ({ chunk_id: row.id, document_id: doc.id, document_name: doc.name, page: row.page, content: row.content, score: 0, metadata: { type: row.type, index: row.idx } });

/** A `value` answer quoting `text`, cited at one source. */
function valueCiting(text: string, hit: SearchHit, confidence: number, via: string): Composed {
  const cites = new CitationList();
  const quoted = `${text} [${cites.number(hit)}]`;
  return { text: quoted, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(quoted), answerType: 'value', via };
}

/** A document's stored chunks, read by the answerer itself, in order, at most `max`. */
const chunksInOrder = async (req: AnswerRequest, documentId: string, max: number) => (await req.chunks(documentId)).sort((a, b) => a.idx - b.idx).slice(0, max);

/** Where the line holding offset `at` starts, and where the `n` lines above it start (as far as there are lines). */
function lineStarts(text: string, at: number, n: number): { line: number; above: number } {
  const line = text.lastIndexOf('\n', at - 1) + 1;
  let above = line;
  for (let k = 0; k < n && above > 0; k++) above = text.lastIndexOf('\n', above - 2) + 1;
  return { line, above };
}

/** How many of `words` (terms) a text says, itself or by a synonym. */
function wordsSaid(words: string[], text: string): number {
  const said = termSet(text);
  return words.filter((t) => hasName(said, t)).length;
}

/** How many of the question's terms a document's name says (its file name, its kind, its language). */
const nameCount = (r: Retrieval, docTerms: DocTerms) => (id: string) => [...r.primary].filter((t) => !!docTerms.get(id)?.names(t)).length;

/**
 * The one retrieved document a question is about: the one that holds every name of the question (with no name in it, the
 * best retrieved one); null when none or several do.
 */
function documentNamed(req: AnswerRequest, r: Retrieval, docTerms: DocTerms): AnswerDocument | null {
  const ranked = [...new Set(r.hits.map((h) => h.document_id))];
  const names = r.ask.names;
  const holding = names.length ? ranked.filter((id) => names.every((t) => !!docTerms.get(id)?.has(t))) : ranked.slice(0, 1);
  return holding.length === 1 ? (req.documents.find((d) => d.id === holding[0]) ?? null) : null;
}

/** the confidence of the long form a document gives for the abbreviation asked about (its letters checked, one reading) */
const DEFINED = 0.75;
/** the documents read whole for the definition of an abbreviation their retrieved chunks print without it, and their chunks read */
const DEFINITION_DOCUMENTS = 2;
const DEFINITION_CHUNKS = 2000;
const KIND_ORDER: Record<Definition['kind'], number> = { parenthesis: 0, stated: 1, cell: 2 };

/**
 * "What does MIPS stand for?", "Which tax credit is abbreviated CIM on the wage certificate?": the long form a document gives
 * for the abbreviation (core/text abbreviations: before or inside a parenthesis, stated after it, or in the cell next to it,
 * its letters found in the long form in order), from the retrieved chunks, else from the rest of the documents whose
 * retrieved chunks print it without saying what it stands for (a footnote or a legend elsewhere). Null when no document
 * defines it, or when the documents define it differently and the question does not name the one it means. The other way
 * round ("Which abbreviation marks essay questions?"): the abbreviation a retrieved chunk defines by words the question says.
 */
async function composeDefinition(req: AnswerRequest, r: Retrieval, docTerms: DocTerms): Promise<Composed | null> {
  const short = abbreviationAsked(req.question);
  const reverse = !short && shortFormAsked(req.question);
  if ((!short && !reverse) || !r.hits.length || DEFINED < req.minConfidence) return null;
  const found: { d: Definition; hit: SearchHit; rank: number }[] = [];
  if (short) {
    r.hits.forEach((hit, rank) => {
      for (const d of definitionsOf(short, hit.content)) found.push({ d, hit, rank });
    });
  } else {
    // "Which abbreviation marks essay questions?": an abbreviation the retrieved chunks define by words the question says, all of them
    const asked = termSet(req.question);
    r.hits.forEach((hit, rank) => {
      for (const t of capitalsIn(hit.content)) {
        for (const d of definitionsOf(t, hit.content)) {
          const said = [...termSet(d.long)];
          if (said.length && said.every((w) => asked.has(w))) found.push({ d, hit, rank });
        }
      }
    });
  }
  if (!found.length && short) {
    const printing = [...new Set(r.hits.filter((h) => printsAbbreviation(short, h.content)).map((h) => h.document_id))].slice(0, DEFINITION_DOCUMENTS);
    for (const id of printing) {
      const doc = req.documents.find((d) => d.id === id);
      const rows = doc ? await chunksInOrder(req, id, DEFINITION_CHUNKS) : [];
      for (const row of rows) {
        for (const d of definitionsOf(short, row.content)) {
          found.push({ d, hit: sourceOf(row, doc!), rank: r.hits.length + row.idx });
        }
      }
    }
  }
  if (!found.length) return null;
  // (the documents the question names best by their names, when it names some of those that define it: "in the ferry memo")
  const naming = nameCount(r, docTerms);
  const most = Math.max(...found.map((f) => naming(f.hit.document_id)));
  const pool = found.filter((f) => naming(f.hit.document_id) === most);
  // (one reading: the same long form for the abbreviation asked, the same abbreviation for the words asked)
  const fold = (x: string) => x.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  if (new Set(pool.map((f) => fold(short ? f.d.long : f.d.short))).size > 1) return null;
  const best = [...pool].sort((a, b) => KIND_ORDER[a.d.kind] - KIND_ORDER[b.d.kind] || a.rank - b.rank)[0]!;
  return valueCiting(short ? `${best.d.short}: ${best.d.long}` : `${best.d.long}: ${best.d.short}`, best.hit, DEFINED, `definition:${best.d.kind}${reverse ? ':short' : ''}`);
}

/** the confidence of the options a group marks, for a question about what was ticked (the group chosen by the question's words) */
const MARKED = 0.7;
/** a question about what was ticked, selected or chosen in a group of boxes; and one about what was not */
const MARK_ASKED = /\b(?:tick(?:ed|s)?|check(?:ed|s)?|check-?marked|select(?:ed|s)?|chos(?:e|en)|marked|crossed)\b|\b(?:un(?:ticked|checked|selected|marked))\b/iu;
const MARK_NOT = /\b(?:not|never|un(?:ticked|checked|selected|marked)|left\s+(?:blank|empty|open))\b/iu;
/** the question's words that ask about the marks, not which group */
const MARK_WORDS = new Set(terms('tick ticked ticks check checked checks checkmarked marked select selected selects chose chosen crossed unticked unchecked unselected unmarked left blank empty which what'));

/**
 * "Which breakfast drinks were ticked in the list of services?", "Which filer category does the company tick?": the options a
 * group of checkboxes marks (core/text options: a box before or after each option, or one a line), in the retrieved chunk
 * whose group the question's other words name best (its options, the words before them, the lines above); those not marked
 * when the question asks what was not. Groups named equally in one chunk answer together; in two chunks, nothing is chosen.
 */
function composeMarked(req: AnswerRequest, r: Retrieval): Composed | null {
  if (!MARK_ASKED.test(req.question) || !/\b(?:which|what)\b/iu.test(req.question) || MARKED < req.minConfidence) return null;
  const negated = MARK_NOT.test(req.question);
  const asked = [...r.primary].filter((t) => !MARK_WORDS.has(t));
  if (!asked.length) return null;
  let best = 0;
  let chosen: { hit: SearchHit; groups: ReturnType<typeof optionGroups> }[] = [];
  for (const hit of r.hits) {
    for (const g of optionGroups(hit.content)) {
      const score = wordsSaid(asked, `${g.context} ${g.prompt} ${g.options.map((o) => o.label).join(' ')}`);
      if (!score || score < best) continue;
      if (score > best) chosen = [];
      best = score;
      const same = chosen.find((c) => c.hit.chunk_id === hit.chunk_id);
      if (same) same.groups.push(g);
      else chosen.push({ hit, groups: [g] });
    }
  }
  if (chosen.length !== 1) return null;
  const labels = chosen[0]!.groups.flatMap((g) => g.options.filter((o) => o.checked !== negated).map((o) => o.label));
  if (!labels.length) return null;
  return valueCiting(`${negated ? 'Not ticked' : 'Ticked'}: ${labels.join('; ')}`, chosen[0]!.hit, MARKED, 'marked');
}

/** the confidence of a cell looked up by another cell of its row, in columns the question names exactly */
const LOOKED_UP = 0.75;
/** the documents and chunks read for a table's rows */
const LOOKUP_DOCUMENTS = 2;
const LOOKUP_CHUNKS = 400;

/**
 * "On Sheet2, what is the col-4 value in the row where col-1 is 8?": the cell of the column asked, in the row whose cell in the
 * other column named is the value given (core/text row-lookup), in every table of the retrieved documents (at most two) with
 * both columns, on the sheet the question names (the page of the chunk that is the sheet's name). One value: the answer; none,
 * or different ones in different tables: null.
 */
async function composeRowLookup(req: AnswerRequest, r: Retrieval): Promise<Composed | null> {
  const asked = rowLookupAsked(req.question);
  if (!asked || !r.hits.length || LOOKED_UP < req.minConfidence) return null;
  const column = cellKey(asked.column);
  const keyColumn = cellKey(asked.keyColumn);
  const key = cellKey(asked.key);
  const found: { value: string; hit: SearchHit }[] = [];
  for (const id of [...new Set(r.hits.map((h) => h.document_id))].slice(0, LOOKUP_DOCUMENTS)) {
    const doc = req.documents.find((d) => d.id === id);
    if (!doc) continue;
    const rows = await chunksInOrder(req, id, LOOKUP_CHUNKS);
    // (the sheet named: the pages whose chunk is that sheet's name alone)
    const pages = asked.sheet ? new Set(rows.filter((row) => cellKey(row.content) === cellKey(asked.sheet!)).map((row) => row.page)) : null;
    if (pages && !pages.size) continue;
    for (const row of rows) {
      if (pages && !pages.has(row.page)) continue;
      for (const u of unitsOf(row.content)) {
        if (u.kind !== 'row' || !u.cells || !u.columns) continue;
        const a = u.columns.findIndex((c) => cellKey(c) === column);
        const b = u.columns.findIndex((c) => cellKey(c) === keyColumn);
        if (a < 0 || b < 0 || cellKey(u.cells[b] ?? '') !== key || !(u.cells[a] ?? '').trim()) continue;
        found.push({ value: u.cells[a]!.trim(), hit: sourceOf(row, doc) });
      }
    }
  }
  if (!found.length || new Set(found.map((f) => cellKey(f.value))).size > 1) return null;
  return valueCiting(`${asked.column} (${asked.keyColumn} ${asked.key}): ${found[0]!.value}`, found[0]!.hit, LOOKED_UP, 'row-lookup');
}

/** the confidence of a contact value read by its form from the document the question names */
const CONTACT = 0.7;
/** the chunks read for a contact value or a town, of the one document the question names */
const CONTACT_CHUNKS = 400;
/** the words that ask for a contact value's form, not which one */
const CONTACT_WORDS = new Set(terms('e-mail email mail address web website site page webpage url homepage internet phone telephone number fax hotline mobile iban bic swift code account bank give given contact contacted reach reached'));

/**
 * "What e-mail address can CCC Salzburg be reached at?", "What is the IBAN of CCC Salzburg's account?", "Which web page lists the
 * accepted ways to pay?": the e-mail address, web address, telephone number, IBAN (its check digits holding) or BIC (after its
 * label) of the document the question names (every name of the question in it; with none, the best retrieved one), read by
 * its form (core/text contacts) from the document's chunks: its only such value, else the one whose line and the line above
 * say the most of the question's other words, alone. For a website, the site all the document's addresses share. Null
 * otherwise, or when two documents hold all the question's names.
 */
async function composeContact(req: AnswerRequest, r: Retrieval, docTerms: DocTerms): Promise<Composed | null> {
  const form = contactAsked(req.question);
  if (!form || !r.hits.length || CONTACT < req.minConfidence) return null;
  const doc = documentNamed(req, r, docTerms);
  if (!doc) return null;
  const rows = await chunksInOrder(req, doc.id, CONTACT_CHUNKS);
  const asked = [...r.primary].filter((t) => !CONTACT_WORDS.has(t) && !r.ask.names.includes(t));
  // (a fax number answers only a question for a fax number, and only a fax number does)
  const fax = /\b(?:tele)?fax\b/iu.test(req.question);
  const found = rows.flatMap((row) =>
    contactValues(row.content, form).filter((v) => form !== 'phone' || !!v.fax === fax).map((v) => {
      // (the value's line and the line above it)
      const lineEnd = row.content.indexOf('\n', v.at);
      return { v, row, score: wordsSaid(asked, row.content.slice(lineStarts(row.content, v.at, 1).above, lineEnd === -1 ? undefined : lineEnd)) };
    }),
  );
  if (!found.length) return null;
  const key = (x: string) => x.toLowerCase().replace(/[\s()./-]+/g, '');
  let best = found[0]!;
  let value = best.v.value;
  if (new Set(found.map((f) => key(f.v.value))).size > 1) {
    const top = Math.max(...found.map((f) => f.score));
    const tops = found.filter((f) => f.score === top);
    const hosts = new Set(found.map((f) => hostOf(f.v.value)));
    if (top > 0 && new Set(tops.map((f) => key(f.v.value))).size === 1) {
      best = tops[0]!;
      value = best.v.value;
    } else if (form === 'web' && hosts.size === 1 && !/\bpage\b/iu.test(req.question)) {
      // (a website: the site every address of the document is on, cited where it is printed alone if it is)
      value = [...hosts][0]!;
      best = found.find((f) => key(f.v.value) === key(value)) ?? found[0]!;
    } else return null;
  }
  const label = { email: 'E-mail', web: 'Web', phone: 'Telephone', iban: 'IBAN', bic: 'BIC' }[form];
  return valueCiting(`${label}: ${value}`, sourceOf(best.row, doc), CONTACT, `contact:${form}`);
}

/** the confidence of a town read from the postal address printed by the name the question gives */
const TOWN = 0.7;
/** the question's words that ask for a town, not whose */
const TOWN_WORDS = new Set(terms('city town municipality place located based headquartered headquarters situated registered where which what office'));

/**
 * "In which city is Coolblue located?", "Where is QualityHosting AG based?", "In which town does Robert Schneider AG have its
 * office?": the town of the postal address (core/text addresses: printed with its postcode) whose own words (twice) and the
 * two lines above say the most of the question's words, in the document that holds every name of the question (with no
 * name in it, the best retrieved one). One town: the answer; two towns the question's words name alike, or two such
 * documents: null.
 */
async function composeTown(req: AnswerRequest, r: Retrieval, docTerms: DocTerms): Promise<Composed | null> {
  if (!townAsked(req.question) || !r.hits.length || TOWN < req.minConfidence) return null;
  const doc = documentNamed(req, r, docTerms);
  const asked = [...r.primary].filter((t) => !TOWN_WORDS.has(t));
  if (!doc || !asked.length) return null;
  const rows = await chunksInOrder(req, doc.id, CONTACT_CHUNKS);
  const says = (text: string) => wordsSaid(asked, text);
  const found = rows.flatMap((row) =>
    townsIn(row.content).map((t, i, all) => {
      // (the address's own words: from the end of the town before it on its line, or the line's start, to the town; they count
      // twice the words of the two lines above, which count only when the address starts its line)
      const { line, above: from } = lineStarts(row.content, t.at, 2);
      const own = Math.max(line, i ? all[i - 1]!.end : 0);
      const above = own === line ? says(row.content.slice(from, line)) : 0;
      return { t, row, score: 2 * says(row.content.slice(own, t.end)) + above };
    }),
  );
  const top = Math.max(0, ...found.map((f) => f.score));
  const tops = found.filter((f) => f.score === top);
  if (!top || new Set(tops.map((f) => f.t.town.toLowerCase())).size !== 1) return null;
  const best = tops[0]!;
  return valueCiting(`${best.t.town} (${best.t.postcode})`, sourceOf(best.row, doc), TOWN, 'town');
}

/** the site of a web address ("https://cccsbg.at/about/uve.html" → "cccsbg.at") */
const hostOf = (url: string) => url.replace(/^https?:\/\//iu, '').replace(/^www\./iu, '').replace(/[/?#].*$/u, '').toLowerCase();

/** Code mode: the best-supported explanatory sentence and the code block of the sources that fits best. */
function composeCode(r: Retrieval, prose: Candidate[], cites: CitationList): Composed | null {
  const total = [...r.weights.values()].reduce((a, b) => a + b, 0) || 1;
  const top = r.hits[0]?.score || 1;
  const blocks: { block: CodeBlock; hit: SearchHit; coverage: number; score: number }[] = [];
  for (const hit of r.hits) {
    const chunkTerms = termSet(hit.content);
    for (const block of codeBlocksOf(hit.content)) {
      const bt = termSet(block.code);
      // prose right before the block explains it: count the chunk's terms at a lower weight
      let got = 0;
      let own = 0;
      for (const [t, w] of r.weights) {
        if (bt.has(t)) {
          got += w;
          own++;
        } else if (chunkTerms.has(t)) got += 0.6 * w;
      }
      const cov = got / total;
      if (!own && cov < MIN_COVERAGE) continue;
      blocks.push({ block, hit, coverage: cov, score: 0.7 * cov + 0.3 * (hit.score / top) });
    }
  }
  blocks.sort((a, b) => b.score - a.score);
  const best = blocks[0];
  if (!best || best.coverage < MIN_COVERAGE * 0.8) return null;
  const intro = prose.find((c) => c.hit.chunk_id === best.hit.chunk_id && c.coverage >= MIN_COVERAGE * 0.7) ?? (prose[0] && prose[0].coverage >= MIN_COVERAGE ? prose[0] : undefined);
  const parts: string[] = [];
  const picked: Candidate[] = [];
  if (intro) {
    parts.push(`${quote(intro.unit)} [${cites.number(intro.hit)}]`);
    picked.push(intro);
  }
  const n = cites.number(best.hit);
  parts.push(`\`\`\`${best.block.language}\n${best.block.code}\n\`\`\`\n[${n}]`);
  const second = blocks.find((b) => b !== best && b.hit.chunk_id !== best.hit.chunk_id && b.score >= best.score * 0.85);
  if (second) parts.push(`\`\`\`${second.block.language}\n${second.block.code}\n\`\`\`\n[${cites.number(second.hit)}]`);
  const text = parts.join('\n\n');
  const cov = Math.max(best.coverage, intro?.coverage ?? 0);
  const confidence = round(clamp(0.12 + 0.5 * cov + 0.38 * best.hit.score, 0.05, 0.97), 3);
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text) };
}


// ---------------------------------------------------------------- the answerer

/** The knowledge base's IDF, from the host's term statistics. */
const idfOf = (stats: AnswerTermStats) => new Idf(stats.chunks, (t) => stats.df(t));

/**
 * What the question asks, over what the host's retrieval found: the whole question's weights (with the previous
 * question's terms for a follow-up), and in deep mode each part of the question with its own.
 */
function retrievalOf(req: AnswerRequest): Retrieval {
  if (!req.documents.length) return { hits: [], parts: [], weights: new Map(), primary: new Set(), ask: ask(req.question, new Map()) };
  const idf = idfOf(req.terms);
  const weights = queryWeights(req.question, idf, req.context);
  if (req.mode === 'deep') {
    const parts = decompose(req.question).map((p) => ask(p, queryWeights(p, idf, req.context)));
    return { hits: req.sources, parts, weights, primary: primaryTerms(req.question), ask: ask(req.question, weights) };
  }
  const whole = ask(req.question, weights);
  return { hits: req.sources, parts: [whole], weights, primary: whole.primary, ask: whole };
}

function result(c: Composed): AnswerResult {
  return {
    text: c.text,
    citations: c.citations.map((h) => ({ chunk_id: h.chunk_id })),
    confidence: c.confidence,
    answer_type: c.unanswered ? 'none' : (c.answerType ?? 'passage'),
    usage: { prompt_tokens: c.promptTokens, completion_tokens: c.completionTokens },
  };
}

/** the most words between a question's predicate and its argument for a line to state the relation */
const RELATION_WINDOW = 6;
/** the endings that make a noun of a verb's stem ("invent" / "invention", "pay" / "payment") */
const NOMINAL = /^(?:ion|ation|ition|ment|al|ance|ence|er|or|ure)$/;
/** marks that end a clause: the predicate and its argument are read together only within one */
const CLAUSE_END = /[.;:!?|()\u2013\u2014]/;

/** Whether a word's term `w` is the term `t`: the same stem, a synonym, a longer form (matchOf), or its noun form. */
function saysTerm(t: string, w: string | undefined): boolean {
  if (!w) return false;
  if (matchOf(t, new Set([w]))) return true;
  return t.length >= 3 && w.startsWith(t) && NOMINAL.test(w.slice(t.length));
}

/**
 * Whether a line states the relation a question asks: its predicate (questionPredicate) and its argument (the key term,
 * else the question's weightiest other term) close together (at most RELATION_WINDOW words apart) in one clause, as
 * opposed to the two apart, one of them only, or neither. For the trace.
 */
function relationIn(text: string, predicate: string | null, argument: string | null) {
  const tokens = text.match(/[\p{L}\p{N}'-]+|[.;:!?|()\u2013\u2014]/gu) ?? [];
  const at: { pred: number[]; arg: number[] } = { pred: [], arg: [] };
  const clause: number[] = [];
  let n = 0;
  let c = 0;
  for (const tok of tokens) {
    if (CLAUSE_END.test(tok) && tok.length === 1) {
      c++;
      continue;
    }
    const w = terms(tok)[0];
    if (predicate && saysTerm(predicate, w)) at.pred.push(n);
    if (argument && saysTerm(argument, w)) at.arg.push(n);
    clause.push(c);
    n++;
  }
  let distance: number | null = null;
  let sameClause = false;
  for (const p of at.pred)
    for (const a of at.arg) {
      if (p === a) continue;
      const d = Math.abs(p - a);
      const same = clause[p] === clause[a];
      if (distance === null || (same && !sameClause) || (same === sameClause && d < distance)) [distance, sameClause] = [d, same];
    }
  const relation = !predicate || !argument ? 'no predicate' : distance !== null ? (sameClause && distance <= RELATION_WINDOW ? 'close' : 'apart') : at.pred.length ? 'predicate only' : at.arg.length ? 'argument only' : 'neither';
  return { relation, distance, sameClause };
}

/** The predicate and argument of a question's relation (relationIn). */
function relationAsked(question: string, weights: Map<string, number>, key: string | null, kind: Set<string>) {
  const predicate = questionPredicate(question);
  const others = [...weights].filter(([t]) => t !== predicate && !kind.has(t)).sort((a, b) => b[1] - a[1]);
  const argument = key && key !== predicate ? key : (others[0]?.[0] ?? null);
  return { predicate, argument };
}

/** What the trace says of one quoted candidate: where it was found, what it says of the question, how it scored. */
function candidateSignals(c: Candidate, r: Retrieval, all: Candidate[], docTerms: DocTerms, key: string | null, relation: { predicate: string | null; argument: string | null }) {
  const top = r.hits[0];
  const sameText = (x: Candidate) => normText(x) === normText(c);
  const rank = all.findIndex((x) => sameUnit(x, c));
  // the best candidate that is not this one (nor the same text found again), and the best of another document
  const next = all.find((x) => !sameText(x) && !sameUnit(x, c));
  const otherDoc = all.find((x) => x.hit.document_id !== c.hit.document_id);
  const doc = docTerms.get(c.hit.document_id);
  const keyPlace = !key ? 'no key' : matchOf(key, c.terms) ? 'quote' : matchOf(key, termSet(c.hit.content)) ? 'chunk' : doc?.has(key) ? 'document' : 'elsewhere';
  const ratio = (x: Candidate | undefined) => (x && c.score ? round(x.score / c.score, 3) : null);
  return {
    text: c.unit.text.slice(0, 200),
    kind: c.unit.kind,
    cut: c.unit.cut ?? null,
    words: wordCount(c.unit.text),
    endsSentence: SENTENCE_END.test(c.unit.text),
    rank,
    hitRank: c.hitRank,
    hitScore: round(c.hit.score, 3),
    hitShare: top?.score ? round(c.hit.score / top.score, 3) : null,
    topDocument: !!top && top.document_id === c.hit.document_id,
    documentRank: r.hits.findIndex((h) => h.document_id === c.hit.document_id),
    score: round(c.score, 3),
    coverage: round(c.coverage, 3),
    sentenceCoverage: round(c.sentenceCoverage, 3),
    own: c.own,
    ownShare: r.weights.size ? round(c.own / r.weights.size, 3) : null,
    typed: c.typed,
    keyMissing: c.keyMissing,
    keyInDocument: c.keyInDocument,
    keyBefore: c.keyBefore,
    keyPlace,
    // the best rival's score as a share of this one's: the best candidate of all, the next one, the best of another document
    bestShare: ratio(all[0]),
    nextShare: ratio(next),
    otherDocumentShare: ratio(otherDoc),
    near: all.filter((x) => x.score >= 0.9 * c.score).length,
    nearDocuments: new Set(all.filter((x) => x.score >= 0.9 * c.score).map((x) => x.hit.document_id)).size,
    // whether the line states the relation asked: the question's predicate and argument together in one clause
    ...relationIn(c.unit.text, relation.predicate, relation.argument),
  };
}

/** The trace of an answer (opt-in, plugin option `trace`): the rule that gave it, the question's signals and each quoted candidate's. */
export type AnswerTrace = ReturnType<typeof traceOf>;
function traceOf(req: AnswerRequest, r: Retrieval, c: Composed, result: AnswerResult) {
  const docTerms = req.terms.documents;
  const all = req.mode === 'code' || !r.hits.length ? [] : candidatesFor(r.hits, r.ask, docTerms, req.terms.lower);
  const evidence = [...r.ask.primary].filter((t) => !r.ask.kind.has(t));
  const attribute = attributeAsked(r.ask.text);
  const key = keyTerm(evidence.filter((t) => !r.ask.names.includes(t) || t === attribute), r.weights, docTerms);
  const relation = relationAsked(r.ask.text, r.weights, key, r.ask.kind);
  return {
    question: req.question,
    // (a refusal: the rule of the extractive answer that refused, the later rules having found nothing either)
    via: c.via ?? (c.unanswered ? 'none' : 'other'),
    answer_type: result.answer_type,
    confidence: result.confidence,
    type: r.ask.type,
    key,
    ...relation,
    terms: r.weights.size,
    names: r.ask.names.length,
    hits: r.hits.length,
    hitDocuments: new Set(r.hits.map((h) => h.document_id)).size,
    candidates: all.length,
    quoted: (c.quoted ?? []).map((x) => candidateSignals(x, r, all, docTerms, key, relation)),
    // a refusal's best candidate
    best: c.unanswered && all[0] ? candidateSignals(all[0], r, all, docTerms, key, relation) : null,
  };
}

/** The offline answer to a question (see the top of this file); `trace`, when given, receives the answer's trace. */
export async function answerQuestion(req: AnswerRequest, trace?: (t: AnswerTrace) => void): Promise<AnswerResult> {
  const r = retrievalOf(req);
  const docTerms = req.terms.documents;
  const aspect = req.mode === 'code' ? null : documentAspect(req.question);
  // (an abbreviation asked about: the long form a document gives for it, before the rules that quote the best lines)
  // (and the options a group of checkboxes marks, for a question about what was ticked)
  // (and a cell looked up by another cell of its row)
  const defined = req.mode === 'code' ? null : ((await composeDefinition(req, r, docTerms)) ?? composeMarked(req, r) ?? (await composeRowLookup(req, r)));
  let composed = defined ?? ((aspect && (await composeDocumentLevel(req.chunks, aspect, req.question, req.documents, docTerms, r))) || composeExtractive(r, req.mode, docTerms, req.terms.lower, req.minConfidence));
  // where the rules above refuse (quick mode): a cited passage, the one field of a record the question names, the one cell of the
  // asked type in the row it names, the sentence that can answer past the best ones, in this order, the first that answers
  if (req.mode !== 'code' && req.mode !== 'deep') {
    for (const fallback of [composeEvidencePassage, composeField, composeTypedCell, composeAnsweringSentence]) {
      if (!composed.unanswered) break;
      composed = fallback(r, docTerms, req.terms.lower, req.minConfidence) ?? composed;
    }
    // (a question for one of a kind by its noun alone, "which tool …", where no sentence holds a name: the documents may name the
    // thing in common words, "garnet, emery", or at a sentence's start, "Docling bundles …": the sentences that say the question
    // best, quoted as for a question that asks for no type, under the same floor)
    if (composed.unanswered && composed.via === 'none:no-candidate' && r.ask.oneOfAKind) {
      const untyped = composeExtractive({ ...r, ask: { ...r.ask, type: null } }, req.mode, docTerms, req.terms.lower, req.minConfidence);
      if (!untyped.unanswered) composed = { ...untyped, via: `kind:${untyped.via ?? 'answer'}` };
    }
  }
  // (last: a contact value or a bank identifier by its form, or the town of a postal address, from the document the question names)
  if (composed.unanswered && req.mode !== 'code') composed = (await composeContact(req, r, docTerms)) ?? composed;
  // (a town asked for: the one the address by the name prints, in place of a passage, which may quote several)
  if ((composed.unanswered || composed.answerType === 'passage') && req.mode !== 'code') composed = (await composeTown(req, r, docTerms)) ?? composed;
  const out = result(composed);
  trace?.(traceOf(req, r, composed, out));
  return out;
}

/** The refusal of a question whose sources do not answer it, its confidence lower the less they cover the question. */
export function refusalFor(req: AnswerRequest): AnswerResult {
  if (!req.sources.length) return result(refusal(0, 0));
  const r = retrievalOf(req);
  const best = candidatesFor(r.hits, r.ask)[0]?.coverage ?? 0;
  return result(refusal(best, req.sources[0]!.score));
}
