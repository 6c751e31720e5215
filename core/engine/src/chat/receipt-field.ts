import type { AnswerChunk, AnswerRequest, AnswerResult, Chunk, FieldDefinition } from '@quire/core';
import { conceptsOfWords, documentDateOrder, scanDates, scanNumbers } from '@quire/fields';
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
 * lines: the shop's name and address) — or, for a date, the words of a thing bought that one line of the record prints ("On
 * what date was the masking tape bought?") —, a date or an amount in the question matches the record's own, exactly one of the
 * retrieved documents is such a record, and the extractor's confidence is at least MIN_CONFIDENCE (of the values it
 * gives at 0.8 or more on the 100 development receipts, 53 of 54 are right). Null otherwise: the refusal stands.
 *
 * An identifier asked by its label ("What is the invoice number of the McDonald's receipt?", "What customer number does
 * iViveLabs have at QualityHosting?") is read the same way. The answer takes the place of the answerer's `given` one when
 * that one does not say the value: such a question asks for nothing but the record's field (every other word is checked),
 * which the extractor reads by its label in the record's own language and by the record's arithmetic, where the
 * answerer quotes the line that shares the most words with the question (an item's line for "How much was the bill").
 *
 * A person asked by the role the record prints as a label ("Who was the cashier at SLF Cash & Carry?"), an amount by one of a
 * receipt's labels ("How much change …") and a sales tax's rate by its label are read from the record's lines after that
 * label (afterLabel), where the answerer refused, at confidence ROLE_CONFIDENCE; so is a thing bought's price ("What did the
 * Mario Kart game cost in the Coolblue order?"), the amount on the line that names the thing (itemPrice).
 */
export async function receiptFieldAnswer(rt: Engine, request: AnswerRequest, given?: AnswerResult): Promise<AnswerResult | null> {
  const asked = askedField(request.question);
  // (a person or a labelled amount read by rule only where the answerer refused)
  if (!asked || (asked.labelWord && given && given.answer_type !== 'none')) return null;
  const extractor = rt.registry.tryGet('extractor');
  if (!extractor) return null;
  // (`printed`: the value as read after its label, already where the record prints it)
  const found: { value: Extracted; documentId: string; chunks: Chunk[]; printed?: Printed }[] = [];
  const seen = new Set<string>();
  for (const hit of request.sources) {
    if (seen.has(hit.document_id) || seen.size >= MAX_DOCUMENTS) continue;
    seen.add(hit.document_id);
    // a receipt or an invoice: a short document whose first lines name it as the question does
    const doc = await rt.store.repo('documents').get(hit.document_id);
    if (!doc || doc.status !== 'completed' || (doc.pages ?? 1) > MAX_RECORD_PAGES) continue;
    // (a thing's price is read from the thing's own line: the record's names may be printed anywhere on it, an invoice's issuer
    // in its footer under a logo, so its first chunks are not read apart)
    const price = asked.field === 'price';
    if (!price) {
      const first = await request.chunks?.(doc.id, HEADER_CHUNKS);
      if (!first?.length || !namesInHeader(asked.names, first)) continue;
    }
    const chunks = await loadChunks(rt, doc.id);
    // (the extractor runs here, in the request: only on the few thousand characters a receipt or an invoice holds)
    if (chunks.reduce((n, c) => n + c.content.length, 0) > MAX_RECORD_CHARS) continue;
    if (price && !namesInHeader(asked.names, chunks.map((c) => ({ idx: c.index, content: c.content })), Infinity)) continue;
    if (asked.items?.length && !printsItem(asked.items, chunks)) continue;
    const parsed = await loadParsed(rt, contentKey(doc.id)).catch(() => null);
    if (!parsed) continue;
    if (asked.labelWord) {
      // a person or an amount printed after its label: read from the record's lines, its date (when asked) by the extractor
      if (asked.date) {
        const r = await extractor.extract({ doc: parsed, chunks, fields: [FIELDS.date!], settings: { engine: 'offline' }, signal: request.signal });
        if (r.fieldResults[0]?.value !== asked.date) continue;
      }
      const read = afterLabel(asked, chunks);
      if (read) found.push({ value: { value: read.text, confidence: ROLE_CONFIDENCE, page: read.chunk.page ?? null }, documentId: doc.id, chunks, printed: read });
      continue;
    }
    // the field asked, and the one the question names the record by (a date for a total, an amount for a date)
    const fields = [FIELDS[asked.field] ?? { name: asked.field, type: 'string' }, ...(asked.date && asked.field !== 'date' ? [FIELDS.date] : []), ...(asked.amount !== null && asked.field === 'date' ? [FIELDS.total] : []), ...(asked.prefer ? [FIELDS[asked.prefer]!] : [])];
    // the layout rules alone (the figures above are theirs; with an LLM configured, its chat answer came first)
    const r = await extractor.extract({ doc: parsed, chunks, fields, settings: { engine: 'offline' }, signal: request.signal });
    const result = (name: string) => r.fieldResults.find((f) => f.field === name);
    if (asked.date && asked.field !== 'date' && result('date')?.value !== asked.date) continue;
    if (asked.amount !== null && asked.field === 'date' && Number(result('total')?.value) !== asked.amount) continue;
    // (an invoice that prints an order date apart from its own: the order's date, when the question asks when it was ordered)
    const preferred = asked.prefer ? result(asked.prefer) : undefined;
    const main = preferred && preferred.value !== null && preferred.value !== undefined ? preferred : result(asked.field);
    if (!main || main.value === null || main.value === undefined) continue;
    // the only date a record prints is its date: the extractor's own confidence in a date found without a label is low
    // and a total the record prints more than once (the total line, the payment, the rounding) is its total
    const sure = asked.field === 'date' ? onlyDate(parsed.text, main.value) : main === result('total') && printedTwice(parsed.text, main.value);
    const confidence = sure ? Math.max(main.confidence, SURE_CONFIDENCE) : main.confidence;
    found.push({ value: { value: main.value, confidence, page: main.evidence?.page ?? null }, documentId: doc.id, chunks });
  }
  // two records answer the question's names alike: which one it means is not known
  if (found.length !== 1) return null;
  const { value, documentId, chunks } = found[0]!;
  if (!asked.labelWord && value.confidence < MIN_CONFIDENCE) return null;
  const printed = found[0]!.printed ?? printedValue(asked.field, value, chunks);
  // (an answer that already says the value stands)
  if (!printed || (given && given.answer_type !== 'none' && given.text.includes(printed.text))) return null;
  // the cited chunk read through the request, so that the host cites its own copy
  await request.chunks?.(documentId, [printed.chunk.index]);
  const text = `${asked.label}: ${printed.text} [1]`;
  return { text, citations: [{ chunk_id: printed.chunk.id }], confidence: round(Math.min(MAX_CONFIDENCE, value.confidence), 3), answer_type: 'value' };
}

type Extracted = { value: unknown; confidence: number; page: number | null };
/** a value as a record prints it, and the chunk that prints it */
type Printed = { text: string; chunk: Chunk };

/**
 * Whether the amount `value` is printed at least twice in the record's text (as an amount: with its cents). On the 100
 * development receipts the extractor's total under 0.8 is printed twice or more on 42, and right on 41 of them (the other
 * is a tax summary's net amount, printed twice: "Total : 20.00 1.20"); a total printed once is right on 22 of 37.
 */
export function printedTwice(text: string, value: unknown): boolean {
  const v = Number(value);
  if (!Number.isFinite(v) || v <= 0) return false;
  let n = 0;
  for (const m of scanNumbers(text)) if (m.amountLike && m.value === v && ++n >= 2) return true;
  return false;
}

/**
 * Whether `value` is the one calendar day the record's text prints (however often). On the 100 development receipts the
 * extractor's date is the only day printed on 85, and right on 84 of them (OCR misread the other's day), though it gives
 * 51 of them a confidence under 0.8 (a date found with no label, its day/month order guessed).
 */
export function onlyDate(text: string, value: unknown, now = new Date().getUTCFullYear()): boolean {
  const days = new Set(scanDates(text, { order: documentDateOrder(text) }).map((d) => d.iso));
  // (and of a year a receipt still kept is printed in: not OCR's "1819" for a date and the hour glued to it)
  const year = Number(String(value).slice(0, 4));
  return days.size === 1 && days.has(String(value)) && year >= now - 50 && year <= now + 1;
}

/** the extractor's confidence a value needs (its values at 0.8 or more are right 53 times in 54 on the development receipts) */
const MIN_CONFIDENCE = 0.8;
const MAX_CONFIDENCE = 0.95;
/** the confidence of a record's date when it is the only date the record prints (see onlyDate), or of a total printed twice (printedTwice) */
const SURE_CONFIDENCE = 0.8;
/** the retrieved documents looked at, best first */
const MAX_DOCUMENTS = 4;
/** the most pages and characters of a receipt or an invoice read (a longer document is not one) */
const MAX_RECORD_PAGES = 4;
const MAX_RECORD_CHARS = 20_000;
/** the lines that name a record (the shop's name, company and address), from its first chunks (a title may be one of its own) */
const HEADER_LINES = 8;
const HEADER_CHUNKS = [0, 1, 2];

const FIELDS: Record<string, FieldDefinition> = {
  total: { name: 'total', type: 'number' },
  date: { name: 'date', type: 'date' },
  order_date: { name: 'order_date', type: 'date' },
};

/** what a question for a record's total may say besides the record's names (stems) */
const TOTAL_WORDS = new Set(terms('total totals bill paid pay payment spend spent come came cost amount charged charge due receipt invoice purchase customer altogether sum meal order visit shopping'));
/** the identifiers asked by their labels (concepts of @quire/fields) */
const ID_FIELDS = new Set(['invoice_number', 'order_number', 'customer_number', 'vat_id', 'iban', 'bic']);
/** the words that name a kind of record */
const RECORD_WORDS = new Set(['invoice', 'order', 'receipt', 'bill']);
/** what a question for a record's identifier may say besides its label and the record's names (stems) */
const ID_WORDS = new Set(terms('what which is was the of on for at from does did do have has given printed shown stated receipt invoice bill order customer'));
/** what a question for a record's date may say besides the record's names (stems) */
const DATE_WORDS = new Set(terms('date dated day purchase purchased made make shop shopped shopping issue issued receipt invoice bill buy bought customer visit order ordered placed place printed'));

/**
 * The field a question asks of a record and what names the record: a person by a role, an amount by a receipt's label, an
 * identifier by its label, else the total or the date; the record's names are the words with a capital or a digit (other
 * than the first word, a label such as "GST", and the question's own date or amount); null when the question says anything
 * else.
 */
export function askedField(question: string): Asked | null {
  const q = question.trim();
  if (/\bhow many\b/i.test(q)) return null;
  const role = askedRole(q) ?? askedLabelledAmount(q) ?? askedRate(q) ?? askedItemPrice(q);
  if (role) return role;
  const id = askedIdentifier(q);
  if (id) return id;
  const total = /\bhow much\b|\btotal\b|\bc[oa]me to\b/i.test(q);
  const date = /\bwhen\b|\bdate\b|\bwhat day\b|\bwhich day\b/i.test(q);
  if (total === date) return null;
  // a date or an amount that says which record: taken out of the words
  const dates = scanDates(q);
  const undated = withoutSpans(q, dates);
  const amounts = scanNumbers(undated).filter((n) => n.amountLike);
  if (dates.length > 1 || amounts.length > 1) return null;
  const rest = withoutSpans(undated, amounts);
  const names = namesOf(rest, total ? TOTAL_WORDS : DATE_WORDS);
  // (a date question may name the record by a thing bought instead, "On what date was the modelling clay bought?": the date of
  // the one record that prints a line with those words; not a total's, where "how much did the clay cost" asks for its price)
  const items = names || total ? [] : itemWords(rest, DATE_WORDS);
  if (!names && !items.length) return null;
  const prefer = !total && /\border(?:ed)?\b/i.test(q) ? 'order_date' : undefined;
  return { field: total ? 'total' : 'date', names: names ?? [], items, date: dates[0]?.iso ?? null, amount: amounts[0]?.value ?? null, label: total ? 'Total' : 'Date', prefer };
}

/**
 * A question for one of a record's identifiers by its label ("What is the invoice number of the McDonald's receipt?", "What
 * customer number does iViveLabs have at QualityHosting?"): the longest run of the question's words that is a label of
 * such a field (the extractor's lexicon: invoice, order or customer number, VAT id, IBAN, BIC, in any of its languages),
 * the rest the record's names and words such questions use.
 */
function askedIdentifier(question: string): Asked | null {
  if (!/^(what|which)\b/i.test(question)) return null;
  // a date that says which record ("the Gin Kee receipt of 4 January 2018"): taken out of the words
  const dates = scanDates(question);
  if (dates.length > 1) return null;
  const q = withoutSpans(question, dates).replace(/\s+/g, ' ').trim();
  const ws = words(q);
  let hit: { id: string; at: number; n: number } | undefined;
  for (let n = 4; n >= 1 && !hit; n--)
    for (let i = 0; i + n <= ws.length && !hit; i++) {
      // (a record's own word alone, "invoice", is the record, not its number)
      if (n === 1 && RECORD_WORDS.has(ws[i]!)) continue;
      const ids = [...new Set(conceptsOfWords(ws.slice(i, i + n)))].filter((c) => ID_FIELDS.has(c));
      if (ids.length === 1) hit = { id: ids[0]!, at: i, n };
    }
  let rest: string;
  let phrase: string[];
  if (hit) {
    // the label's words out of the question (the words in order, whatever stands between them in the text)
    phrase = ws.slice(hit.at, hit.at + hit.n);
    const re = new RegExp(phrase.map((w) => w.replace(/[^\p{L}\p{N}]/gu, '\\W*')).join('\\W+'), 'iu');
    const m = re.exec(q);
    if (!m) return null;
    rest = `${q.slice(0, m.index)} ${q.slice(m.index + m[0].length)}`;
  } else {
    // "the number of the AWS invoice": "number" and the one record word it is the number of
    const m = /^(what|which) (is|was) the number (?:of|on) (?:the |this |that )?(.+?) (invoice|order|receipt|bill)\W*$/i.exec(q);
    const ids = m ? [...new Set(conceptsOfWords([m[4]!.toLowerCase(), 'number']))].filter((c) => ID_FIELDS.has(c)) : [];
    if (!m || ids.length !== 1) return null;
    hit = { id: ids[0]!, at: 0, n: 0 };
    phrase = [m[4]!.toLowerCase(), 'number'];
    rest = `${m[1]} ${m[3]}`;
  }
  const names = namesOf(rest, ID_WORDS);
  if (!names) return null;
  const label = phrase.join(' ').replace(/\b(vat|iban|bic|id|gst|po)\b/g, (w) => w.toUpperCase());
  return { field: hit.id, names, date: dates[0]?.iso ?? null, amount: null, label: label[0]!.toUpperCase() + label.slice(1) };
}

/**
 * "Who was the cashier at SLF Cash & Carry?", "Who was the server on the Al Mendis bill of 21 March 2018?": the role (one
 * word, printed on the record as a label) and the record's names, a date that must be the record's, and words such
 * questions use.
 */
function askedRole(question: string): Asked | null {
  const m = /^who (?:was|is) the (\p{L}{3,}) (?:at|on|of|in|for|from) (.+?)\W*$/iu.exec(question);
  if (!m) return null;
  const role = m[1]!.toLowerCase();
  if (RECORD_WORDS.has(role) || terms(role).length !== 1) return null;
  const record = namedRecord(m[2]!, ROLE_WORDS);
  return record && { field: 'role', labelWord: role, ...record, amount: null, label: role[0]!.toUpperCase() + role.slice(1) };
}

/**
 * The record the end of a question names ("at Restoran Wan Sheng on 14 March 2018"): its name words and the date it says,
 * the other words all `allowed` (stems); null when it says more than one date, no name, or another word.
 */
function namedRecord(text: string, allowed: ReadonlySet<string>): { names: string[]; date: string | null } | null {
  const dates = scanDates(text);
  if (dates.length > 1) return null;
  // (the end of a question: its first word may be a name)
  const names = namesOf(`at ${withoutSpans(text, dates)}`, allowed);
  return names && { names, date: dates[0]?.iso ?? null };
}

/**
 * "How much change did the customer get back at MR DIY?", "How much GST does the McDonald's Mahkota Cheras bill include?":
 * an amount a receipt prints after one of the labels of RECEIPT_AMOUNT_LABELS, the record's names, a date that must be the
 * record's, and words such questions use.
 */
function askedLabelledAmount(question: string): Asked | null {
  const m = /^how much (\p{L}+) (?:did|does|was|were|is|has|had) (.+?)\W*$/iu.exec(question);
  if (!m || !RECEIPT_AMOUNT_LABELS.has(m[1]!.toLowerCase())) return null;
  const word = m[1]!.toLowerCase();
  const record = namedRecord(m[2]!, AMOUNT_WORDS);
  const label = /^(gst|sst|vat)$/.test(word) ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1);
  return record && { field: 'amount', labelWord: word, ...record, amount: null, label };
}

/**
 * "What GST rate was charged on the Sweet Forest Cafe bill?", "At what rate is VAT charged on the Coolblue purchases?": the
 * rate a record prints after a sales tax's label (GST, VAT, BTW, TVA, USt… by the lexicon, or SST, tax), the record's names,
 * a date that must be the record's, and words such questions use.
 */
function askedRate(question: string): Asked | null {
  const m = /^what (?:is |was )?(?:the )?(\p{L}+) rate (.+?)\W*$/iu.exec(question) ?? /^at what rate (?:is|was|were) (\p{L}+) (.+?)\W*$/iu.exec(question);
  if (!m || !isTaxLabel(m[1]!)) return null;
  const word = m[1]!.toLowerCase();
  const record = namedRecord(m[2]!, AMOUNT_WORDS);
  return record && { field: 'rate', labelWord: word, ...record, amount: null, label: `${word.toUpperCase()} rate` };
}

/**
 * "How much did the table lamp cost at Indah Gift & Home?", "What did the Mario Kart game cost in the Coolblue order?": the price
 * of one thing bought, named before "cost" (or "come to"), and the record named after it; or the record first and the thing
 * after "charge for" ("What did Amazon charge for Glacier storage?"). The record's part says its names, a date that must be
 * the record's, and words such questions use; the thing is at most MAX_THING_WORDS words, none of them a word that asks for a
 * total or a tax ("altogether", "including GST"), which say more than one line's price.
 */
function askedItemPrice(question: string): Asked | null {
  const m = /^(?:how much|what) (?:did|does|do) (?:the |a |an |one |that |this )?(.+?) (?:cost|c[oa]me to) (?:at|on|in|from) (.+?)\W*$/iu.exec(question);
  // (or the record first: "What did Amazon charge for Glacier storage?")
  const c = m ? null : /^(?:how much|what) (?:did|does|do) (.+?) charge (?:for|on) (?:the |a |an |one |that |this )?(.+?)\W*$/iu.exec(question);
  if (!m && !c) return null;
  const thing = thingOf(m ? m[1]! : c![2]!);
  const record = thing && namedRecord(m ? m[2]! : c![1]!, PRICE_RECORD_WORDS);
  return record && { field: 'price', labelWord: 'price', thing, ...record, amount: null, label: 'Price' };
}

/** the most words of a thing whose price is asked */
const MAX_THING_WORDS = 5;
/** words that ask for more than one line's price, or for one of a record's labelled amounts */
const NOT_A_THING = new Set(terms('total altogether together all including excluding incl excl gst vat tax sst bill receipt invoice order purchase'));
/** what the record's part of a price question may say besides its names (stems) */
const PRICE_RECORD_WORDS = new Set(terms('receipt invoice bill order purchase purchases shop store visit'));

function thingOf(text: string): Thing | null {
  const ws = text.split(/\s+/).filter(Boolean);
  const ts = terms(text);
  if (!ts.length || ws.length > MAX_THING_WORDS || ts.some((t) => NOT_A_THING.has(t))) return null;
  const names = ws.filter((t) => /[\p{Lu}\p{N}]/u.test(t)).flatMap(nameWords);
  return { names, terms: [...new Set(ts)] };
}

/**
 * The price a record prints on the line of a thing bought: the lines that print every name word of the thing (or, when it has
 * none, every one of its words), each with one amount (printed with its cents, not a percentage; the same amount twice, a unit price
 * and the line's total, counts once); null when no line does, a line prints two different amounts (a quantity's unit price and
 * total: which is asked is not known), or two lines print different ones.
 */
function itemPrice(thing: Thing, chunks: readonly Chunk[]): Printed | null {
  let found: { text: string; chunk: Chunk; value: number } | null = null;
  for (const chunk of chunks)
    for (const line of chunk.content.split('\n')) {
      const ts = new Set([...terms(line), ...nameWords(line)]);
      if (!(thing.names.length ? thing.names : thing.terms).every((t) => ts.has(t))) continue;
      // (printed with cents: a quantity before a currency sign, "1 € 44,99", reads as an amount of 1)
      const amounts = [...scanNumbers(line)].filter((n) => n.amountLike && !n.percent && /[.,]\d{2}$/.test(line.slice(n.start, n.end)));
      if (!amounts.length) continue;
      if (new Set(amounts.map((n) => n.value)).size > 1) return null;
      const n = amounts.at(-1)!;
      if (found && found.value !== n.value) return null;
      found ??= { text: line.slice(n.start, n.end).trim(), chunk, value: n.value };
    }
  return found && { text: found.text, chunk: found.chunk };
}

/** a sales tax's label: one the lexicon knows as VAT in some language (GST, BTW, TVA, USt…), or SST, tax */
const isTaxLabel = (word: string) => /^(?:tax|sst)$/i.test(word) || labelConcepts(word).includes('vat');

/**
 * The rate a record prints after a sales tax's label on the same line ("GST 6%", "BTW 21% € 124,61"): the first percentage
 * after the question's label, or after any label the lexicon knows as the same tax; null when no line prints one, or two
 * lines print different ones.
 */
export function labelledRate(label: string, chunks: readonly Chunk[]): Printed | null {
  const vat = labelConcepts(label).includes('vat');
  let found: { text: string; chunk: Chunk; value: number } | null = null;
  for (const chunk of chunks)
    for (const line of chunk.content.split('\n'))
      for (const t of line.matchAll(/\p{L}+/gu)) {
        if (t[0].toLowerCase() !== label && !(vat && labelConcepts(t[0]).includes('vat'))) continue;
        const tail = line.slice(t.index! + t[0].length);
        const n = [...scanNumbers(tail)].find((x) => x.percent);
        if (!n) continue;
        if (found && found.value !== n.value) return null;
        found ??= { text: tail.slice(n.start, n.end).trim(), chunk, value: n.value };
        break;
      }
  return found && { text: found.text, chunk: found.chunk };
}

/** the labels of a receipt's amounts asked as "how much <label> …" (the total has rules of its own) */
const RECEIPT_AMOUNT_LABELS = new Set(['change', 'cash', 'discount', 'rounding', 'gst', 'sst', 'vat', 'tax', 'tip', 'deposit']);
/** what a question for such an amount may say besides its label and the record's names (stems) */
const AMOUNT_WORDS = new Set(terms('customer get got give given back receive received return returned pay paid include included includ charge charged add added apply applied levied tender tendered bill receipt invoice purchase purchases visit order shop'));

/**
 * The amount a record prints after `label` on the same line ("CHANGE RM 16.10", "| CASH |  | 20.00 |", "GST 6% 1.46": the
 * first amount with cents after the label, a percentage passed over); null when no line prints one, or two lines print
 * different ones.
 */
export function labelledAmount(label: string, chunks: readonly Chunk[]): Printed | null {
  const re = new RegExp(`(?<![\\p{L}])${label}(?![\\p{L}])`, 'iu');
  let found: { text: string; chunk: Chunk; value: number } | null = null;
  for (const chunk of chunks)
    for (const line of chunk.content.split('\n')) {
      const m = re.exec(line);
      // (a label that qualifies another amount, "Total (incl GST) 25.40", "Amount excl. VAT", is not the label of this one)
      if (!m || QUALIFIER.test(line.slice(0, m.index))) continue;
      const tail = line.slice(m.index + m[0].length);
      const n = [...scanNumbers(tail)].find((x) => x.amountLike && !x.percent);
      if (!n) continue;
      if (found && found.value !== n.value) return null;
      found ??= { text: tail.slice(n.start, n.end).trim(), chunk, value: n.value };
    }
  return found && { text: found.text, chunk: found.chunk };
}

/** The value a record prints for the question's label: a person after a role, a rate after a tax, a thing's price on its line, else an amount after its label. */
function afterLabel(asked: Asked, chunks: readonly Chunk[]): Printed | null {
  switch (asked.field) {
    case 'role':
      return roleValue(asked.labelWord!, chunks);
    case 'rate':
      return labelledRate(asked.labelWord!, chunks);
    case 'price':
      return itemPrice(asked.thing!, chunks);
    default:
      return labelledAmount(asked.labelWord!, chunks);
  }
}

/** words before a label that make it qualify another amount ("incl. GST", "exclusive of VAT", "w/o tax") */
const QUALIFIER = /\b(?:incl|inclusive|including|inc|excl|exclusive|excluding|exc|before|after|w\/o?|with|without|less)\.?\s*(?:of\s*)?[(\s]*$/i;

/** what a question for a person of a record may say besides the role and the record's names (stems) */
const ROLE_WORDS = new Set(terms('receipt invoice bill shop store restaurant outlet branch purchase visit order'));
/** the confidence of a person read after a role's label: the label is the question's, where the name ends is read by rule */
const ROLE_CONFIDENCE = 0.7;

/**
 * The person a record prints after the role's label ("CASHIER : KELLY", "Cashier: Thandar", "Server: SOFYA"): the words
 * after the label and its separator, up to the next label ("Time:"), a number or a rule, at most three words of letters;
 * null when no line prints one, or two lines print different ones.
 */
export function roleValue(role: string, chunks: readonly Chunk[]): Printed | null {
  // (the separator may be a table's cell rule: "| Cashier: | AMIRA |")
  const label = new RegExp(`(?<![\\p{L}])${role}(?![\\p{L}])[\\s:;,.'’>#=|-]*`, 'iu');
  let found: Printed | null = null;
  for (const chunk of chunks)
    for (const line of chunk.content.split('\n')) {
      const m = label.exec(line);
      if (!m) continue;
      const ws: string[] = [];
      for (const t of line.slice(m.index + m[0].length).split(/\s+/)) {
        if (!t || ws.length >= 3 || !/^\p{L}[\p{L}.'’-]*$/u.test(t) || STOP_LABELS.has(t.toLowerCase().replace(/\W+$/, ''))) break;
        ws.push(t);
        if (/[:;]$/.test(t)) break;
      }
      if (ws.length && /[:;]$/.test(ws.at(-1)!)) ws.pop();
      const text = ws.join(' ');
      if ((text.match(/\p{L}/gu) ?? []).length < 2) continue;
      if (found && found.text.toLowerCase() !== text.toLowerCase()) return null;
      found ??= { text, chunk };
    }
  return found;
}

/** words that begin the next label on a receipt's line, not a person's name */
const STOP_LABELS = new Set(['time', 'date', 'salesperson', 'cashier', 'server', 'ref', 'reference', 'location', 'no', 'inv', 'invoice', 'table', 'pax', 'counter', 'pos', 'terminal', 'shift', 'member', 'customer', 'doc', 'receipt', 'bill', 'station', 'till', 'tel', 'id']);

interface Asked {
  /** the extractor's field: 'total', 'date' or an identifier's concept ('invoice_number', …) */
  field: string;
  names: string[];
  date: string | null;
  amount: number | null;
  /** what the answer calls the value */
  label: string;
  /** a field whose value, when the record prints one, answers in place of `field`'s (the order date of a question about an order) */
  prefer?: string;
  /** the label a record prints before the value: a person's role ("cashier", `field` 'role'), an amount's ("change", `field` 'amount'), a tax's for its rate ("GST", `field` 'rate'); 'price' for a thing's price, read from the thing's line (`field` 'price') */
  labelWord?: string;
  /** a thing bought that names the record instead of its names ("the modelling clay"): stems one line of the record says, all of them */
  items?: string[];
  /** the thing bought whose price is asked (`field` 'price'): its name words (capitalised or with a digit) and its stems */
  thing?: Thing;
}

/** a thing bought as a question names it: "the Mario Kart game" → names mario, kart; terms mario, kart, game */
interface Thing {
  names: string[];
  terms: string[];
}

/** the most words of a thing bought that names a record */
const MAX_ITEM_WORDS = 3;

/**
 * The words of a question in lower case that name a thing bought ("On what date was the modelling clay bought?" → model, clay):
 * the stems of its words other than `allowed` ones, when it says no name (no capitalised word past the first) and at most
 * MAX_ITEM_WORDS of them; [] otherwise.
 */
function itemWords(text: string, allowed: ReadonlySet<string>): string[] {
  const ws = text.split(/\s+/).filter(Boolean);
  if (ws.some((t, i) => i > 0 && /[\p{Lu}\p{N}]/u.test(t))) return [];
  const items = [...new Set(terms(text))].filter((t) => !allowed.has(t));
  return items.length <= MAX_ITEM_WORDS ? items : [];
}

/** Whether one line of the record says every one of `items` (stems). */
function printsItem(items: readonly string[], chunks: readonly Chunk[]): boolean {
  return chunks.some((c) =>
    c.content.split('\n').some((line) => {
      const ts = new Set(terms(line));
      return items.every((t) => ts.has(t));
    }),
  );
}

/**
 * The question's words that begin with a capital or a digit, or a capital after their first lower-case letters ("iViveLabs"),
 * (other than the first word and a label such as "GST") as the record's
 * name words; null when the other words are not all `allowed` (stems) or no name is said.
 */
function namesOf(text: string, allowed: ReadonlySet<string>): string[] | null {
  const names: string[] = [];
  const plain: string[] = [];
  text
    .split(/\s+/)
    .filter(Boolean)
    .forEach((t, i) => {
      // (a capitalised label, "GST", "VAT", asks for that line, not the total)
      // (a name may begin in lower case: "iViveLabs", "eBay")
      if (i > 0 && /^[("']?(?:[\p{Lu}\p{N}]|\p{Ll}+\p{Lu})/u.test(t) && !labelConcepts(t).some((c) => c !== 'total')) names.push(...nameWords(t));
      else plain.push(t);
    });
  if (!names.length || !terms(plain.join(' ')).every((t) => allowed.has(t))) return null;
  return names;
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
 * Whether every name word of the question is a word of the record's header (the first `headerLines` lines of its first chunks;
 * all of its lines with Infinity); letters printed apart count as one word too ("D.I.Y." is diy).
 */
function namesInHeader(names: readonly string[], chunks: readonly Pick<AnswerChunk, 'idx' | 'content'>[], headerLines = HEADER_LINES): boolean {
  const lines = [...chunks].sort((a, b) => a.idx - b.idx).flatMap((c) => c.content.split('\n')).filter((l) => l.trim());
  const ws = nameWords(lines.slice(0, headerLines).join(' '));
  const header = new Set(ws);
  for (let i = 0; i < ws.length; i++) {
    let run = '';
    for (let j = i; j < ws.length && ws[j]!.length === 1; j++) header.add((run += ws[j]));
  }
  return names.every((n) => header.has(n));
}

/** The value as the record prints it, and the chunk that prints it (on the extractor's page when it gives one); null when none does. */
function printedValue(field: string, v: Extracted, chunks: readonly Chunk[]): Printed | null {
  const ordered = [...chunks].sort((a, b) => Number(b.page === v.page) - Number(a.page === v.page) || a.index - b.index);
  for (const chunk of ordered) {
    if (field !== 'date' && field !== 'total') {
      // an identifier as printed: the same letters and digits, spaces aside ("DE 232 446 240")
      const hit = printedIdentifier(chunk.content, String(v.value));
      if (hit) return { text: hit, chunk };
      continue;
    }
    const hit = field === 'date' ? scanDates(chunk.content).find((d) => d.iso === v.value) : [...scanNumbers(chunk.content)].reverse().find((n) => n.value === Number(v.value) && n.amountLike);
    if (hit) return { text: chunk.content.slice(hit.start, hit.end).trim(), chunk };
  }
  return null;
}

/** `value` as `text` prints it, a whole token (not inside a longer run of letters or digits); null when it does not. */
function printedIdentifier(text: string, value: string): string | null {
  const chars = [...value.replace(/\s+/g, '')];
  if (!chars.length) return null;
  const re = new RegExp(`(?<![\\p{L}\\p{N}])${chars.map((c) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join(' ?')}(?![\\p{L}\\p{N}])`, 'u');
  return re.exec(text)?.[0] ?? null;
}
