import type { AnswerChunk, AnswerRequest, AnswerResult, Chunk, FieldDefinition } from '@quire/core';
import { documentDateOrder, scanDates, scanNumbers } from '@quire/fields';
import { labelConcepts, round, terms, words } from '@quire/text';
import type { EngineContext as Engine } from '../context.js';
import { contentKey, loadChunks, loadParsed } from '../io/steps.js';

/**
 * The total or the date of ONE receipt, bill or invoice, asked by the names printed at its top ("How much was the bill at
 * Restoran Wan Sheng?", "On what date was the MR DIY purchase made?", "What was paid at Gin Kee on 31 January 2018?"),
 * where the answerer found no line that says the question: the extractor reads the record's own total or date (its rules
 * for receipts and invoices, as POST /api/extract does) and the answer is that value, cited at the chunk that prints it.
 *
 * Given only when every word of the question is a word such questions use or a word of the record's header (its first
 * lines: the shop's name and address), a date or an amount in the question matches the record's own, exactly one of the
 * retrieved documents is such a record, and the extractor's confidence is at least MIN_CONFIDENCE (of the values it
 * gives at 0.8 or more on the 100 development receipts, 53 of 54 are right). Null otherwise: the refusal stands.
 */
export async function receiptFieldAnswer(rt: Engine, request: AnswerRequest): Promise<AnswerResult | null> {
  const asked = askedField(request.question);
  if (!asked) return null;
  const extractor = rt.registry.tryGet('extractor');
  if (!extractor) return null;
  const found: { value: Extracted; documentId: string; chunks: Chunk[] }[] = [];
  const seen = new Set<string>();
  for (const hit of request.sources) {
    if (seen.has(hit.document_id) || seen.size >= MAX_DOCUMENTS) continue;
    seen.add(hit.document_id);
    // a receipt or an invoice: a short document whose first lines name it as the question does
    const doc = await rt.store.repo('documents').get(hit.document_id);
    if (!doc || doc.status !== 'completed' || (doc.pages ?? 1) > MAX_RECORD_PAGES) continue;
    const first = await request.chunks?.(doc.id, HEADER_CHUNKS);
    if (!first?.length || !namesInHeader(asked.names, first)) continue;
    const chunks = await loadChunks(rt, doc.id);
    // (the extractor runs here, in the request: only on the few thousand characters a receipt or an invoice holds)
    if (chunks.reduce((n, c) => n + c.content.length, 0) > MAX_RECORD_CHARS) continue;
    const parsed = await loadParsed(rt, contentKey(doc.id)).catch(() => null);
    if (!parsed) continue;
    // the field asked, and the one the question names the record by (a date for a total, an amount for a date)
    const fields = [FIELDS[asked.field], ...(asked.date && asked.field === 'total' ? [FIELDS.date] : []), ...(asked.amount !== null && asked.field === 'date' ? [FIELDS.total] : [])];
    // the layout rules alone (the figures above are theirs; with an LLM configured, its chat answer came first)
    const r = await extractor.extract({ doc: parsed, chunks, fields, settings: { engine: 'offline' }, signal: request.signal });
    const result = (name: string) => r.fieldResults.find((f) => f.field === name);
    if (asked.date && asked.field === 'total' && result('date')?.value !== asked.date) continue;
    if (asked.amount !== null && asked.field === 'date' && Number(result('total')?.value) !== asked.amount) continue;
    const main = result(asked.field);
    if (!main || main.value === null || main.value === undefined) continue;
    // the only date a record prints is its date: the extractor's own confidence in a date found without a label is low
    const confidence = asked.field === 'date' && onlyDate(parsed.text, main.value) ? Math.max(main.confidence, ONLY_DATE_CONFIDENCE) : main.confidence;
    found.push({ value: { value: main.value, confidence, page: main.evidence?.page ?? null }, documentId: doc.id, chunks });
  }
  // two records answer the question's names alike: which one it means is not known
  if (found.length !== 1) return null;
  const { value, documentId, chunks } = found[0]!;
  if (value.confidence < MIN_CONFIDENCE) return null;
  const printed = printedValue(asked.field, value, chunks);
  if (!printed) return null;
  // the cited chunk read through the request, so that the host cites its own copy
  await request.chunks?.(documentId, [printed.chunk.index]);
  const text = `${asked.field === 'total' ? 'Total' : 'Date'}: ${printed.text} [1]`;
  return { text, citations: [{ chunk_id: printed.chunk.id }], confidence: round(Math.min(MAX_CONFIDENCE, value.confidence), 3), answer_type: 'value' };
}

type Extracted = { value: unknown; confidence: number; page: number | null };

/**
 * Whether `value` is the one calendar day the record's text prints (however often). On the 100 development receipts the
 * extractor's date is the only day printed on 85, and right on 84 of them (OCR misread the other's day), though it gives
 * 51 of them a confidence under 0.8 (a date found with no label, its day/month order guessed).
 */
export function onlyDate(text: string, value: unknown): boolean {
  const days = new Set(scanDates(text, { order: documentDateOrder(text) }).map((d) => d.iso));
  return days.size === 1 && days.has(String(value));
}

/** the extractor's confidence a value needs (its values at 0.8 or more are right 53 times in 54 on the development receipts) */
const MIN_CONFIDENCE = 0.8;
const MAX_CONFIDENCE = 0.95;
/** the confidence of a record's date when it is the only date the record prints (see onlyDate) */
const ONLY_DATE_CONFIDENCE = 0.8;
/** the retrieved documents looked at, best first */
const MAX_DOCUMENTS = 4;
/** the most pages and characters of a receipt or an invoice read (a longer document is not one) */
const MAX_RECORD_PAGES = 4;
const MAX_RECORD_CHARS = 20_000;
/** the lines that name a record (the shop's name, company and address), from its first chunks (a title may be one of its own) */
const HEADER_LINES = 8;
const HEADER_CHUNKS = [0, 1, 2];

const FIELDS: Record<'total' | 'date', FieldDefinition> = {
  total: { name: 'total', type: 'number' },
  date: { name: 'date', type: 'date' },
};

/** what a question for a record's total may say besides the record's names (stems) */
const TOTAL_WORDS = new Set(terms('total totals bill paid pay payment spend spent come came cost amount charged charge due receipt invoice purchase customer altogether sum meal order visit shopping'));
/** what a question for a record's date may say besides the record's names (stems) */
const DATE_WORDS = new Set(terms('date dated day purchase purchased made make shop shopped shopping issue issued receipt invoice bill buy bought customer visit order ordered placed place printed'));

/**
 * The field a question asks of a record and what names the record: the words with a capital or a digit (other than the
 * first word, a label such as "GST", and the question's own date or amount), as words; null when the question says
 * anything else.
 */
export function askedField(question: string): { field: 'total' | 'date'; names: string[]; date: string | null; amount: number | null } | null {
  const q = question.trim();
  if (/\bhow many\b/i.test(q)) return null;
  const total = /\bhow much\b|\btotal\b|\bc[oa]me to\b/i.test(q);
  const date = /\bwhen\b|\bdate\b|\bwhat day\b|\bwhich day\b/i.test(q);
  if (total === date) return null;
  // a date or an amount that says which record: taken out of the words
  const dates = scanDates(q);
  const undated = withoutSpans(q, dates);
  const amounts = scanNumbers(undated).filter((n) => n.amountLike);
  if (dates.length > 1 || amounts.length > 1) return null;
  const tokens = withoutSpans(undated, amounts).split(/\s+/).filter(Boolean);
  const names: string[] = [];
  const plain: string[] = [];
  tokens.forEach((t, i) => {
    // (a capitalised label, "GST", "VAT", asks for that line, not the total)
    if (i > 0 && /^[("']?[\p{Lu}\p{N}]/u.test(t) && !labelConcepts(t).some((c) => c !== 'total')) names.push(...nameWords(t));
    else plain.push(t);
  });
  if (!names.length) return null;
  const allowed = total ? TOTAL_WORDS : DATE_WORDS;
  if (!terms(plain.join(' ')).every((t) => allowed.has(t))) return null;
  return { field: total ? 'total' : 'date', names, date: dates[0]?.iso ?? null, amount: amounts[0]?.value ?? null };
}

/** `text` with the spans left out (a space in place of each). */
function withoutSpans(text: string, spans: readonly { start: number; end: number }[]): string {
  let out = text;
  for (const s of [...spans].sort((a, b) => b.start - a.start)) out = `${out.slice(0, s.start)} ${out.slice(s.end)}`;
  return out;
}

/** The words of a name as the question and a header are compared: lower case, without a possessive "'s". */
const nameWords = (text: string) => words(text).map((w) => w.replace(/'s$/, ''));

/**
 * Whether every name word of the question is a word of the record's header (the first lines of its first chunks); letters
 * printed apart count as one word too ("D.I.Y." is diy).
 */
function namesInHeader(names: readonly string[], chunks: readonly AnswerChunk[]): boolean {
  const lines = [...chunks].sort((a, b) => a.idx - b.idx).flatMap((c) => c.content.split('\n')).filter((l) => l.trim());
  const ws = nameWords(lines.slice(0, HEADER_LINES).join(' '));
  const header = new Set(ws);
  for (let i = 0; i < ws.length; i++) {
    let run = '';
    for (let j = i; j < ws.length && ws[j]!.length === 1; j++) header.add((run += ws[j]));
  }
  return names.every((n) => header.has(n));
}

/** The value as the record prints it, and the chunk that prints it (on the extractor's page when it gives one); null when none does. */
function printedValue(field: 'total' | 'date', v: Extracted, chunks: readonly Chunk[]): { text: string; chunk: Chunk } | null {
  const ordered = [...chunks].sort((a, b) => Number(b.page === v.page) - Number(a.page === v.page) || a.index - b.index);
  for (const chunk of ordered) {
    const hit = field === 'date' ? scanDates(chunk.content).find((d) => d.iso === v.value) : [...scanNumbers(chunk.content)].reverse().find((n) => n.value === Number(v.value) && n.amountLike);
    if (hit) return { text: chunk.content.slice(hit.start, hit.end).trim(), chunk };
  }
  return null;
}
