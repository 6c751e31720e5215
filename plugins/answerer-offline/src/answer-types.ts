/**
 * What a question asks for, and whether a sentence holds it: who → a person or organisation, when → a
 * date, how much → an amount, how many → a number, what percentage → a percent, where → a place; "which
 * year", "what price"… by the noun asked about. A sentence answers only if it holds an entity of the asked
 * type that is not one of the question's own words. Pure functions, no I/O.
 */
import { STOP_WORDS } from '@quire/text';
import { hasName, termSet } from '@quire/text';

export type AnswerType = 'person' | 'date' | 'year' | 'weekday' | 'money' | 'amount' | 'number' | 'percent' | 'place' | 'identifier' | 'expansion' | 'web' | 'measure';

const TYPE_NOUNS: [RegExp, AnswerType][] = [
  [/^years?$/i, 'year'],
  [/^(?:date|day|month|time|century|decade|period|season|deadline)s?$/i, 'date'],
  [/^(?:percentage|percent|proportion|share|rate)s?$/i, 'percent'],
  [/^(?:price|cost|amount|total|sum|fee|charge|value|salary|balance|budget|revenue|income)s?$/i, 'money'],
  // figures of a business that tables print without a currency ("Nespresso | 3128"): a quantity, not a date
  [/^(?:sales|turnover|profits?|earnings|expenses|expenditures?|volumes?)$/i, 'amount'],
  [/^(?:number|count|quantity)s?$/i, 'number'],
  // a mark given on a scale ("what inspection score did Rotterdam get" → "Rotterdam | 97")
  [/^(?:score|rating|grade|mark|ranking)s?$/i, 'number'],
  // a part of a text named by its number ("which section of title 11" → "§ 1302")
  [/^(?:section|chapter|article|paragraph|clause|page|rule|regulation)s?$/i, 'number'],
  // a page on the web: its address; an e-mail address is written as one too ("hbedoya@us.ibm.com"), not a place
  [/^(?:web|website|webpage|url|link|site|homepage|e-?mail)s?$/i, 'web'],
  [/^(?:city|cities|country|countries|state|states|town|place|location|region|continent|province|county|island|address|street|village)$/i, 'place'],
  [/^(?:person|people|company|companies|firm|organi[sz]ation|author|inventor|founder|manager|player|customer|guest|client|vendor|seller|buyer|employer|team|club|agency|institution|university|who)s?$/i, 'person'],
];

/** The type of entity a question asks for, or null when any statement may answer it ("what is…", "why…"). */
export const answerTypeOf = (question: string): AnswerType | null => typeAsked(question).type;

/**
 * Whether a question asks for one of a kind of thing by its kind's noun alone ("which credit derivative instrument …", "in which
 * questionnaires …"): its type is a name by default, though the answer may be a thing the documents write in common words
 * ("credit default swaps", "pediatric questionnaires").
 */
export const oneOfAKindAsked = (question: string): boolean => typeAsked(question).byKind;

/** The type a question asks for, and whether it asks for one of a kind by its noun alone (both from one reading of the question). */
export function typeAsked(question: string): { type: AnswerType | null; byKind: boolean } {
  const type = typeOfQuestion(question);
  return typeof type === 'object' && type !== null ? type : { type, byKind: false };
}

function typeOfQuestion(question: string): AnswerType | null | { type: AnswerType; byKind: true } {
  const q = question.toLowerCase().replace(/[’`]/g, "'");
  // "what does MIPS stand for": the words the abbreviation is made of
  if (ABBREVIATION_ASKED.test(question)) return 'expansion';
  if (/\b(?:what|which)\s+(?:percentage|percent|proportion|share)\b|\bhow\s+many\s+percent/.test(q)) return 'percent';
  // (a percentage the question names does not make it ask for one: "how many districts exceeded the 1 percent cap" asks for a count)
  if (/\bper\s*cent(?:age)?\b/.test(q) && !/\bhow\s+(?:many|much|old|long)\b|\b(?:when|who|whom|where)\b/.test(q)) return 'percent';
  // "how much does it cost" asks for money; "how much faster" for a quantity
  if (/\bhow\s+expensive\b/.test(q) || (/\bhow\s+much\b/.test(q) && MONEY_WORDS.test(q))) return 'money';
  if (/\bhow\s+much\b/.test(q)) return 'amount';
  // "how tall", "how far": a number with its unit ("6 ft 3 in", "12 km", "two hours"); "how big" may be a count
  if (/\bhow\s+(?:long|far|tall|high|heavy|wide|deep)\b/.test(q)) return 'measure';
  // "how many weeks", "how many kilometres": a count of a unit is a quantity with that unit, not any number
  if (COUNT_OF_UNIT.test(q)) return 'measure';
  if (/\bhow\s+(?:many|old|often|big|large)\b/.test(q)) return 'number';
  // a date of a given grain: the day of the week, the year
  if (/\b(?:day\s+of\s+the\s+week|weekday)\b/.test(q)) return 'weekday';
  if (/\b(?:what|which)\s+year\b/.test(q)) return 'year';
  // a question that begins by asking who is not made a when-question by a clause of time ("who managed the club when he arrived")
  if (/^\s*(?:(?:to|for|by|with|from|of)\s+)?(?:who|whom|whose)\b/.test(q)) return 'person';
  if (/\b(?:when|what\s+time)\b/.test(q)) return 'date';
  // "what telephone number", "what is the account number", "what is the IBAN": a code to quote, not a count
  if (IDENTIFIER_ASKED.test(q) || nounNumberAsked(q)) return 'identifier';
  // "which/what <noun>", possibly with adjectives between: the noun decides
  const m = q.replace(/\b(?:is|are|was|were|the|a|an)\s+/g, '').match(/\b(?:which|what)\s+((?:[a-z'-]+\s+){0,2}[a-z'-]+)/);
  if (m) {
    // the noun phrase ends at the verb: "which processor were the inference times measured on" asks for a processor, not a time
    const phrase = q.match(/\b(?:which|what)\s+(?:(?:is|are|was|were)\s+)?((?:[a-z'-]+\s*){1,3})/)![1]!.split(/\s+/);
    const end = phrase.findIndex((w, i) => i > 0 && VERB_AFTER_NOUN.test(w));
    const nouns = end > 0 ? phrase.slice(0, end) : m[1]!.split(/\s+/);
    const typeOf = (w: string | undefined) => (w === undefined ? null : (TYPE_NOUNS.find(([re]) => re.test(w))?.[1] ?? null));
    // a page, a link or a site of the web is its address
    if (nouns.some((w) => typeOf(w) === 'web')) return 'web';
    // of two such nouns in a row the second is the head ("total sales": an amount of sales)
    for (let i = 0; i < nouns.length; i++) {
      const t = typeOf(nouns[i]);
      if (t) return typeOf(nouns[i + 1]) ?? t;
    }
  }
  // "what did it cost", "what was charged" (not "which web page lists the ways to pay": the noun asked for came first)
  if (/\b(?:what|which)\b/.test(q) && /\b(?:cost|costs|price|priced|charged?|paid|pay|worth|owed?)\b/.test(q)) return 'money';
  // "which processor", "which act": one of a kind is named
  if (m && /\bwhich\b/.test(q)) return { type: 'person', byKind: true };
  if (/\b(?:who|whom|whose)\b/.test(q)) return 'person';
  if (/\bwhere\b/.test(q)) return 'place';
  return null;
}

/** an auxiliary verb that ends the noun phrase after "which/what" */
const VERB_AFTER_NOUN = /^(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)$/;

/**
 * "What is the contract number …", "which report no. …": the number of a thing named by the noun before it names that thing, whatever
 * the noun (contract, report, docket, file), "the receipt number of the shop's receipt" too: a code to quote. Not "the number of …"
 * (no noun before it: a count), not a quantity's number ("the total number", "the average number").
 */
const NOUN_NUMBER_ASKED = /\b(?:what|which)\s+(?:(?:is|are|was|were)\s+)?(?:(?:the|its|his|her|their|your|my|our)\s+)?(?:[a-z'-]+\s+){0,2}?([a-z'-]+)\s+(?:(?:number|code|id)\b|no\.)/;
const QUANTITY_WORD =
  /^(?:total|average|mean|median|maximum|minimum|max|min|exact|approximate|overall|combined|whole|entire|actual|estimated|expected|typical|net|gross|same|large|larger|largest|small|smaller|smallest|greater|greatest|higher|highest|lower|lowest|round|even|odd|prime|real|natural|final|first|last|next|previous|what|which|the|a|an)$/;
const nounNumberAsked = (q: string) => {
  const m = NOUN_NUMBER_ASKED.exec(q);
  return !!m && !QUANTITY_WORD.test(m[1]!) && !VERB_AFTER_NOUN.test(m[1]!);
};

/**
 * A code asked by its own name (an IBAN, a BIC, an ISBN, a postcode), or the number of a listed thing abbreviated "no" without its
 * dot ("what is the invoice no"), which nounNumberAsked leaves to these nouns ("which states did no district …" asks for none);
 * with "number", "code", "id" or "no." any thing's number is one (nounNumberAsked).
 */
const IDENTIFIER_ASKED =
  /\b(?:what|which)\s+(?:(?:is|are|was|were)\s+)?(?:(?:the|its|his|her|their|your|my|our)\s+)?(?:[a-z'-]+\s+){0,2}?(?:(?:phone|telephone|fax|mobile|account|invoice|order|reference|customer|client|registration|serial|model|part|tax|vat|policy|booking|tracking|membership|identification|id)\s+no|iban|bic|swift(?:\s+code)?|isbn|issn|postcode|post\s+code|zip\s+code|postal\s+code)\b/;

const ABBREVIATION_ASKED = /\b[Ww]hat\s+(?:does|do|did)\s+(?:the\s+)?(?:\p{Ll}+\s+){0,2}["“'‘]?(\p{Lu}[\p{Lu}\d]{1,7})["”'’]?\s+(?:stand\s+for|mean|denote)\b/u;

const MONEY_WORDS = /\b(?:cost|costs|price|priced|charged?|charges|paid|pay|payable|spent|spend|worth|owed?|due|fees?|bill|billed|invoice|total|amount|budget|salary|revenue|[$€£¥₹])/;

const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|' +
  // German, Dutch, French, Spanish month names that differ from the English ones
  'januar|februar|märz|maerz|mai|juni|juli|oktober|dezember|januari|februari|maart|mei|augustus|janvier|février|fevrier|mars|avril|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre';
const WEEKDAY = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/gi;
const DATE_RES: RegExp[] = [
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\.?\\s+(?:of\\s+)?(?:${MONTHS})\\.?,?\\s+\\d{2,4}\\b`, 'giu'),
  new RegExp(`\\b(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\s*,?\\s*\\d{4}\\b`, 'giu'),
  new RegExp(`\\b(?:${MONTHS})\\.?,?\\s+\\d{4}\\b`, 'giu'),
  // (a time glued to the year, as OCR reads a receipt's "25/12/2018 8:13:39 PM": "25/12/20188:13:39 PM")
  /\b\d{1,2}[/.-]\d{1,2}[/.-](?:\d{2,4}\b|\d{4}(?=\d{1,2}:\d{2}(?!\d)))/g,
  /\b\d{4}[/.-]\d{1,2}[/.-]\d{1,2}\b/g,
  // days of the week
  WEEKDAY,
  // times of day: "at 06:40", "9 pm"
  // (with a point only before am/pm: "4.11" alone is an amount)
  /(?<![$€£¥₹\d.,]\s?)\b(?:(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[ap]\.?m\b\.?)?|(?:[01]?\d|2[0-3])\.[0-5]\d\s?[ap]\.?m\b\.?|(?:1[0-2]|0?[1-9])\s?[ap]\.?m\b\.?)/gi,
];
/** Whether a text holds a date with its day, month and year ("14 March 2023", "2023-03-14", "March 14, 2023"). */
export const holdsFullDate = (text: string) => DATE_RES.slice(0, 5).some((re) => [...text.matchAll(re)].some((m) => /\d{1,2}\D+\d{2,4}|\d{4}\D+\d{1,2}/.test(m[0])));
const WEB_ADDRESS = /\bhttps?:\/\/\S+|\bwww\.\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov|dev|ca|at|de|uk|nl|fr)\/\S*/i;
// (not a number that a code or an address joins to a letter: "1851-A", "A-1900")
const YEAR = /(?<![\p{L}\d]|\p{L}[-/])(?:1[5-9]\d{2}|20\d{2})s?(?![\p{L}\d]|[-/]\p{L})/gu;
const MONEY = /(?:[$€£¥₹]\s?-?\d[\d.,]*|\b(?:rs\.?|inr|eur|usd|gbp|chf|aud|cad|rm|myr|sgd)\s?-?\d[\d.,]*|\d[\d.,]*\s?(?:€|eur\b|usd\b|dollars?\b|euros?\b|pounds?\b|rupees?\b))/giu;
const DECIMAL_AMOUNT = /\b\d{1,3}(?:[.,]\d{3})*[.,]\d{2}\b/g;
const MEASURE_UNITS = 'ft|feet|foot|inch(?:es)?|yards?|miles?|metres?|meters?|kilomet(?:re|er)s?|centimet(?:re|er)s?|millimet(?:re|er)s?|km|cm|mm|kg|lbs?|pounds?|stones?|tons?|tonnes?|grams?|kilograms?|litres?|liters?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|decades?|centur(?:y|ies)|percent|per\\s?cent|bytes?|kb|mb|gb|tb|pages?|words?';
/** a span of time given by its years: "1986–1990", "from 1997 to 2004", "since 2015" (the first year captured) */
const SPAN = /\b(?:(?:from\s+)?(1[5-9]\d{2}|20\d{2})\s*(?:[–—-]|\bto\b|\buntil\b|\btill\b)\s*(?:1[5-9]\d{2}|20\d{2}|\d{2})\b|since\s+(1[5-9]\d{2}|20\d{2})\b)/gi;
/** a quantity with its unit: "6 ft 3 in", "1.91 m", "two hours", "a year" */
const MEASURE = new RegExp(`(?<![\\p{L}\\d])(\\d[\\d.,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|a|an|half\\s+an?)\\s?-?\\s?(?:${MEASURE_UNITS}|(?<=\\d\\s?)(?:m|g|h|%))(?![\\p{L}\\d])`, 'giu');
/** a percentage with its number: "1%", "13 per cent" */
const PERCENT_VALUE = /(?<![\p{L}\d])\d[\d.,]*\s?(?:%|per\s?cent\b|percent\b)/giu;
/** a unit of time or measure counted by "how many …" */
const UNIT_WORDS = 'seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centur(?:y|ies)|miles?|kilomet(?:re|er)s?|metres?|meters?|feet|inch(?:es)?|yards?|kilograms?|kg|km|pounds?|tons?|tonnes?|litres?|liters?|grams?|bytes?|pages?|words?';
const UNIT_WORD = new RegExp(`^(?:${UNIT_WORDS})$`, 'i');
const COUNT_OF_UNIT = new RegExp(`\\bhow\\s+many\\s+(?:${UNIT_WORDS})\\b`, 'i');
/** whether a unit as written is the unit asked for: the same word, singular or plural */
const sameUnit = (written: string, asked: string) => {
  const stem = (w: string) => w.toLowerCase().replace(/[\s-]/g, '').replace(/(?:ies)$/, 'y').replace(/(?:(?<=[sxz]|ch|sh)es|s)$/, '');
  // (a unit as tables abbreviate it: "1199 sec" for seconds, "45 min", "3 hrs")
  const full = (w: string) => ({ sec: 'second', min: 'minute', hr: 'hour' })[w] ?? w;
  return full(stem(written)) === full(stem(asked));
};
const PERCENT = /\d\s?%|\bper\s?cent\b|\bpercentage points?\b/i;
const NUMBER_WORDS = /\b(?:zero|none|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|half|twice|single|double)\b/i;
const NUMBER = /(?<![\p{L}\d])\d[\d.,]*(?:\s?(?:k|m|bn|x|million|billion|thousand))?(?![\p{L}\d])/giu;
const ORG_WORD = /^(?:inc|ltd|llc|llp|plc|gmbh|ag|sa|bv|b\.v|nv|co|corp|corporation|company|limited|pvt|bhd|sdn|university|institute|centre|center|department|ministry|office|court|bank|foundation|association|society|council|committee|agency|group|laboratories|labs?|trustee|board|commission|school|college|hospital|church)\.?$/i;

/** The question's own words, lower-cased (an entity the question already names is not an answer). */
export function questionWords(question: string): Set<string> {
  return new Set((question.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.,/-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? []).flatMap((w) => [w, ...w.split(/[.,/-]/)]));
}

function without(text: string, res: RegExp[]): string {
  let t = text;
  for (const re of res) t = t.replace(re, ' ');
  return t;
}

const fresh = (tok: string, own: Set<string>) => !own.has(tok.toLowerCase().replace(/[.,]+$/, ''));
/** Whether a text holds a sum, by any of the forms given, whose figures the question does not give itself. */
const holdsSum = (text: string, own: Set<string>, forms: RegExp[]) => forms.some((re) => [...text.matchAll(re)].some((m) => fresh(m[0].replace(/[^\d.,]/g, ''), own)));

/**
 * Whether `text` holds an entity of type `type` that the question does not already name. `own` is
 * questionWords(question); `qTerms` the question's stemmed terms (a name the question uses is not new).
 */
export function holdsType(text: string, type: AnswerType, own: Set<string>, qTerms: Set<string>, common?: ReadonlySet<string>): boolean {
  switch (type) {
    case 'weekday':
      return [...text.matchAll(WEEKDAY)].some((m) => fresh(m[0], own));
    case 'year':
      return [...text.matchAll(YEAR)].some((m) => fresh(m[0], own));
    case 'date': {
      for (const re of DATE_RES)
        for (const m of text.matchAll(re)) {
          // a date whose year the question gives is new only by its day ("when in 2014…" → "3 August 2014")
          const years = [...m[0].matchAll(/\d{4}/g)].map((y) => y[0]);
          if (fresh(m[0], own) && (!years.length || !years.every((y) => own.has(y)) || /\d{1,2}\D+\d{4}|\d{4}\D+\d{1,2}/.test(m[0]))) return true;
        }
      // (not the year of a name: "the Excise Act, 2001", "Windows 2000")
      // (nor a year alone in brackets after a name, a citation's: "the Technical Report (2010)", "Smith (2010)")
      for (const m of text.matchAll(YEAR)) if (fresh(m[0], own) && !yearOfName(text.slice(0, m.index)) && !citedYear(text, m.index, m[0].length)) return true;
      return false;
    }
    case 'percent':
      return PERCENT.test(text);
    case 'money':
      return holdsSum(text, own, [MONEY, DECIMAL_AMOUNT]);
    case 'amount':
      // a quantity that is not a date or a year ("2x faster", "by 15%")
      return plainNumber(without(text, [...DATE_RES, YEAR]), own);
    case 'number': {
      // (a percentage is a share, not a count: "exceptions to exceed the 1% cap" says not how many)
      // (nor the year of a name: "the Excise Act, 2001" counts nothing)
      if (plainNumber(without(withoutNamedYears(text), [...DATE_RES, PERCENT_VALUE]), own)) return true;
      const w = text.match(new RegExp(NUMBER_WORDS.source, 'gi')) ?? [];
      return w.some((x) => !own.has(x.toLowerCase()));
    }
    case 'expansion': {
      // the abbreviation asked about, spelled out before it ("maximum inner product search (MIPS)"), or given as a label's value ("ORD | Ordering")
      for (const abbr of [...own].filter((w) => /^[a-z][a-z\d]{1,7}$/.test(w))) {
        for (const m of text.matchAll(new RegExp(`[(\\[]\\s*${abbr}\\s*[)\\]]`, 'gi'))) if (m[0].replace(/[^\p{L}\d]/gu, '') === m[0].replace(/[^\p{L}\d]/gu, '').toUpperCase() && abbreviates(abbr, text.slice(0, m.index))) return true;
        // (the words spelled out begin with its first letter: "ORD | Ordering", not the next cell of a form, "AMD | du au")
        if (new RegExp(`(?<![\\p{L}\\d])${abbr.toUpperCase()}\\s*(?:[|:=–]|\\bstands\\s+for\\b|\\bmeans\\b|\\bis\\s+short\\s+for\\b)\\s*[${abbr[0]}${abbr[0]!.toUpperCase()}]`, 'u').test(text)) return true;
      }
      return false;
    }
    case 'measure': {
      // "how many weeks": a quantity in the unit asked for ("4 weeks", not "15,00 EUR" nor "3 km"); "how many years" may be a span of years
      const unit = own.has('many') ? [...own].find((w) => UNIT_WORD.test(w)) : undefined;
      const measures = [...without(text, DATE_RES).matchAll(MEASURE)].filter((m) => fresh(m[1]!, own));
      const span = () => [...text.matchAll(SPAN)].some((m) => fresh((m[1] ?? m[2])!, own));
      if (unit) return measures.some((m) => sameUnit(m[0].slice(m[1]!.length), unit)) || (/^years?$/.test(unit) && span());
      // (or an amount of money: "how high is the fee"; or, for how long, a span of years: "from 1997 to 2004", "since 2015")
      return measures.length > 0 || holdsType(text, 'money', own, qTerms) || (own.has('long') && span());
    }
    case 'web':
      return WEB_ADDRESS.test(text) || /\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov|dev|ca|at|de|uk|nl|fr)\b/i.test(text);
    case 'identifier':
      return identifier(without(text, [...DATE_RES, MONEY]), own);
    case 'place':
      // where code or a document is published: a web address
      if (WEB_ADDRESS.test(text)) return true;
      return properName(text, own, qTerms, common, true);
    case 'person':
      return properName(text, own, qTerms, common);
  }
}

/** Whether the text before a year ends in a capitalised word that the year belongs to ("Excise Act, 2001"), not a preposition ("In 2004"). */
function yearOfName(before: string): boolean {
  const w = before.match(/(?<![\p{L}\p{N}])(\p{Lu}[\p{L}\p{N}]*),?\s+$/u)?.[1];
  return !!w && !STOP_WORDS.has(w.toLowerCase()) && !new RegExp(`^(?:${MONTHS})$`, 'iu').test(w);
}

/**
 * Whether a table's cell prints the asked type with its mark, so that the type alone tells its column: a share with its "%"
 * ("34.5%, n=1"), a sum with its currency ("€ 44,99"), a measure with its unit and not a share ("1199 sec, n=1"). A bare figure
 * ("2.22", "48") says no type; false for any other type.
 */
export function printsTypeMark(cell: string, type: AnswerType, own: Set<string>, qTerms: Set<string>): boolean {
  switch (type) {
    case 'percent':
      return PERCENT.test(cell);
    case 'money':
      return holdsSum(cell, own, [MONEY]);
    case 'measure': {
      // (a share is no measure here, though "%" follows a figure as a unit does; nor a sum, which a measure question may take)
      const rest = without(cell, [PERCENT_VALUE, MONEY]);
      return [...without(rest, DATE_RES).matchAll(MEASURE)].length > 0 && holdsType(rest, 'measure', own, qTerms);
    }
    default:
      return false;
  }
}

/** The text with the years that belong to a name ("the Excise Act, 2001", "Windows 2000") blanked. */
const withoutNamedYears = (text: string) => text.replace(YEAR, (y, at: number) => (yearOfName(text.slice(0, at)) ? ' ' : y));

/** Whether `abbr` is made of the initials of the words right before it ("Dense Passage Retriever (" → DPR). */
function abbreviates(abbr: string, before: string): boolean {
  const letters = abbr.replace(/\d/g, '').toLowerCase();
  if (letters.length < 2) return false;
  const ws = (before.replace(/[(\[]\s*$/, '').match(/[\p{L}][\p{L}'’-]*/gu) ?? []).slice(-letters.length - 2);
  for (let n = letters.length; n <= Math.min(ws.length, letters.length + 2); n++) {
    const initials = ws.slice(-n).filter((w) => !/^(?:of|and|for|the|de|der|und|&)$/i.test(w)).map((w) => w[0]!.toLowerCase()).join('');
    if (initials === letters) return true;
  }
  return false;
}

/** Whether the text spells out `abbr` as a run of capitalised words ("Amazon Web Services" … "AWS"): the run is judged instead. */
function spelledOut(abbr: string, toks: string[]): boolean {
  const letters = abbr.toLowerCase();
  if (letters.length < 2 || /\d/.test(letters)) return false;
  for (let i = 0; i + letters.length <= toks.length; i++) {
    const run = toks.slice(i, i + letters.length);
    if (run.every((w, j) => /^\p{Lu}/u.test(w) && w !== abbr && w[0]!.toLowerCase() === letters[j])) return true;
  }
  return false;
}

/**
 * A code or number that names something: digits in groups ("1-866-330-3304", "AT92 2040 4000 4096 8679",
 * "(702) 939-3254") with at least five digits in all, a token of capitals and digits ("IBZY2087"), or capitals
 * joined by underscores ("QIBM_DB_ZDA"); a year alone or a short count is none.
 */
function identifier(text: string, own: Set<string>): boolean {
  // (a name of capitals joined by underscores, a system value's or a setting's: "QIBM_DB_ZDA", "MAX_PATH")
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_])\p{Lu}[\p{Lu}\d]*(?:_[\p{Lu}\d]+)+(?![\p{L}\p{N}_])/gu)) if (m[0].split('_').some((p) => fresh(p, own))) return true;
  for (const m of text.matchAll(/[+(]?[\p{Lu}\d][\p{Lu}\d]*(?:[\s().\/-]{1,2}[\p{Lu}\d]+)*/gu)) {
    const tok = m[0].trim();
    if (!/\d/.test(tok) || !fresh(tok, own)) continue;
    if (tok.replace(/\D/g, '').length >= 5) return true;
    if (tok.split(/[\s().\/-]+/).some((p) => /^(?=.*\p{Lu})(?=.*\d)[\p{Lu}\d]{6,}$/u.test(p))) return true;
  }
  return false;
}

function plainNumber(text: string, own: Set<string>): boolean {
  for (const m of text.matchAll(NUMBER)) {
    const digits = m[0].replace(/[^\d]/g, '');
    if (!digits) continue;
    if (fresh(m[0].replace(/\s.*$/, ''), own) && !own.has(digits)) return true;
  }
  return false;
}

/**
 * A name: a capitalised (or all-capitals) word that is not the question's, not a month or weekday, and not a
 * common word (one that `common`, the lower-case words of the surrounding sources, also has: "Invoice",
 * "Account"); it must not merely start a sentence or a bracket, unless the next word is capitalised too
 * ("Jim Bainbridge is…") or it is the value of a label ("Guest Name: Sanjay"). Or an organisation word
 * (Ltd, University, Trustee…) after a capitalised word.
 */
function properName(text: string, own: Set<string>, qTerms: Set<string>, common?: ReadonlySet<string>, place = false): boolean {
  // (a slash between letters joins a name: "CP/M", "OS/2")
  const toks = [...text.replace(/\[\d+\]/g, ' ').matchAll(/[\p{L}](?:[\p{L}\p{N}.'’&-]|\/(?=[\p{L}\p{N}]))*/gu)];
  const caps = (t: string) => /^\p{Lu}/u.test(t);
  const month = new RegExp(`^(?:${MONTHS})$`, 'iu');
  // in a line set in capitals, capitals tell nothing: only words the sources never write in lower case count
  const letters = text.replace(/[^\p{L}]/gu, '');
  // (and so in a title, where most words are capitalised: "Dense Passage Retrieval for Open-Domain Question Answering")
  const wordsOf = toks.map((x) => x[0]);
  const titled = wordsOf.length >= 4 && wordsOf.filter(caps).length >= 0.75 * wordsOf.length;
  const shouting = titled || (letters.length > 8 && letters.replace(/[^\p{Lu}]/gu, '').length > 0.6 * letters.length);
  const nouns = new Set(text.match(GERMAN_WORDS) ?? []).size >= 2;
  // (a sentence of prose, most of its words in lower case: an address line or a label's value is not)
  const prose = place && wordsOf.length >= PROSE_WORDS && wordsOf.filter((w) => /^\p{Ll}/u.test(w)).length >= 0.5 * wordsOf.length;
  const isCommon = (lower: string) => !!common && (common.has(lower) || (lower.includes('-') && lower.split('-').every((p) => !p || common.has(p))));
  for (let i = 0; i < toks.length; i++) {
    const raw = toks[i]![0];
    const t = raw.replace(/[.'’-]+$/, '');
    if (!caps(t) || t.length < 2) continue;
    // a name with digits in it names a thing ("Lucene-BM25", "Windows 2000"), not a place
    if (place && /\d/.test(t)) continue;
    // a code of letters and digits interleaved ("5Cef8BFA16c5e3c", "EZ10HD05") is an identifier, no one's name
    if (CODE_TOKEN.test(t)) continue;
    const lower = t.toLowerCase();
    const stems = termSet(t);
    // (a word joined of several, "WordPerfect", is the question's only when all its parts are)
    // (nor a word the question says in other words: "Rechnung" for "invoice")
    if (own.has(lower) || stems.size === 0 || [...stems].every((x) => hasName(qTerms, x))) continue;
    if (month.test(lower) || /^(?:mon|tues|wednes|thurs|fri|satur|sun)day$/i.test(lower) || ORG_WORD.test(t)) continue;
    if (isCommon(lower) && (shouting || t !== t.toUpperCase())) continue;
    // a two-letter abbreviation ("QA", "US") is no name of a person or organisation by itself
    if (/^\p{Lu}{2}$/u.test(t) && !shouting) continue;
    const before = text.slice(0, toks[i]!.index).trimEnd();
    const after = text.slice(toks[i]!.index + raw.length);
    if (/^[\p{Lu}\d]{2,6}$/u.test(t) && !shouting) {
      // an abbreviation of the words before it ("dense passage retriever (DPR)") is those words, not a new name
      if (abbreviates(t, before) || spelledOut(t, toks.map((x) => x[0]))) continue;
      // a symbol of a formula ("EP(·)"), not a name
      if (/^\(/.test(after)) continue;
    }
    // the value of a short label ("Guest Name: Sanjay"), not any word after a colon
    // (a value that reads on in lower case is a phrase that merely begins with a capital: "Order items: Itemized list of products")
    const following = toks[i + 1]?.[0].toLowerCase() ?? '';
    const phrase = /^\s+\p{Ll}/u.test(after) && !STOP_WORDS.has(following) && !new RegExp(`^${GERMAN_WORDS.source}$`, 'u').test(following);
    const label = before.endsWith(':') && (before.split(/[.:;|]\s/).pop() ?? '').split(/\s+/).length <= 3 && !phrase;
    // German capitalises every noun: there a capital tells a name only as a label's value, inside a word ("QualityHosting") or in an abbreviation
    if (nouns && !label && !/\p{Ll}\p{Lu}/u.test(t) && !/^\p{Lu}{3,}$/u.test(t)) continue;
    const starts = !before || /[.!?(\["“‘|•–—-]$/.test(before) || (before.endsWith(':') && phrase);
    const nextCaps = toks[i + 1] && caps(toks[i + 1]![0]) && !common?.has(toks[i + 1]![0].toLowerCase());
    // in prose, a place is named after a word of place ("born in Bangor", "except Antarctica"): not any name of the sentence
    // ("Iwan Wyn Roberts … the Wales national team" says not where he was born)
    if (prose && !label && !LOCATIVE.test(before)) continue;
    if (label || !starts || nextCaps) return true;
  }
  if (prose) return false;
  return toks.some((m, i) => i > 0 && ORG_WORD.test(m[0]) && caps(toks[i - 1]![0]) && !own.has(toks[i - 1]![0].toLowerCase()));
}

/** a sentence of at least this many words is prose, where a place is named after a word of place (LOCATIVE) */
const PROSE_WORDS = 8;
const LOCATIVE = /(?<![\p{L}])(?:[Ii]n|[Aa]t|[Nn]ear|[Ff]rom|to|of|on|into|onto|across|throughout|outside|inside|within|around|except|via|towards?)(?:\s+the)?(?:\s+\p{Lu}[\p{L}.'’-]*)*$/u;

/** a token whose digits come in two runs or more, letters between them: a code, not a name */
const CODE_TOKEN = /\d\p{L}+\d/u;

/** function words of German, whose text capitalises every noun */
const GERMAN_WORDS = /(?<![\p{L}])(?:und|der|die|das|für|mit|sich|bitte|unter|dieser|diese|ihrer|wir|uns|nicht|ist|sind|oder|eine|einer|auf|bei|zur|zum|dem|den|des|wird|werden)(?![\p{L}])/gu;

/** The kinds of thing that are companies ("which company", "what firm"): their names usually carry a legal form. */
const COMPANY_KINDS = /^(?:compan(?:y|ies)|firms?|business(?:es)?|organi[sz]ations?|corporations?|employers?|vendors?|suppliers?|manufacturers?|brands?)$/i;
const LEGAL_FORM = /^(?:inc|ltd|llc|llp|plc|gmbh|ag|sa|sas|sarl|bv|b\.v|nv|n\.v|corp|corporation|company|limited|pvt|bhd|sdn|group|co|kg|oy|ab|as|spa|srl|pty)\.?$/i;

/** Whether a "which/what …" question asks for a company (its kind word is one). */
export const asksForCompany = (question: string) => !!question.match(/\b(?:which|what)\s+([\p{L}-]+)/iu)?.[1]?.match(COMPANY_KINDS);

/** Whether a text names a company by its legal form ("iViveLabs Limited", "Coolblue B.V.", "Galaxy Gaming, Inc."). */
export function holdsCompany(text: string): boolean {
  const toks = text.match(/[\p{L}\p{N}][\p{L}\p{N}.&'’-]*/gu) ?? [];
  return toks.some((t, i) => i > 0 && LEGAL_FORM.test(t) && /^[\p{Lu}\p{N}]|\p{Lu}/u.test(toks[i - 1]!));
}

/** Whether a line is labelled as the total to pay (total, grand total, amount or balance due), not a subtotal. */
export const totalLine = (text: string) => /\b(?:grand\s+)?total\b|\bamount\s+(?:due|payable)\b|\bbalance\s+due\b/i.test(text.replace(/\bsub[\s-]?total\b/gi, ''));

/** The amounts of a text with decimals or a currency sign ("$4.11", "€ 717,97"), as digits: the same value however printed. */
export const amountsOf = (text: string) => [...text.matchAll(/\d[\d.,]*[.,]\d{2}\b|[$€£¥₹]\s?\d[\d.,]*/gu)].map((m) => m[0].replace(/\D/g, ''));

/** how many words from a number the counted noun may stand ("93 arrests", "130 saltwater ducks", "arrests: 93") */
const COUNT_AFTER = 3;
const COUNT_BEFORE = 2;
/** a word that is a count: digits ("4,667", "113k") or a number word */
const COUNT_WORD = /^(?:\d[\d.,]*(?:k|m|bn)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion)$/i;

/**
 * Whether a sentence counts the thing a "how many <noun>" question asks about: a number (not a percentage, a date, a
 * measure with its unit, nor one of the question's own numbers) with the counted noun right after it or right before
 * it ("93 arrests", "killed 13 people", "arrests: 93"), or after "the number of <noun>". `counted(word)` tells whether a word is the counted noun (or a
 * synonym). A sentence that merely holds some number ("a 57 percent increase in arrests", "a 25-year-old student …
 * killing several people") does not say how many.
 */
export function countsNear(text: string, own: Set<string>, counted: (word: string) => boolean): boolean {
  const words = (without(text, [...DATE_RES, PERCENT_VALUE, MEASURE]).match(/[\p{L}\p{N}][\p{L}\p{N}.,'’-]*/gu) ?? []).map((w) => w.replace(/[.,]+$/, ''));
  return words.some((w, i) => {
    if (!COUNT_WORD.test(w) || !fresh(w, own) || own.has(w.replace(/[^\d]/g, '') || w.toLowerCase())) return false;
    // (a number word that picks one of a group counts nothing: "one of the children")
    if (/^\p{L}/u.test(w) && /^of$/i.test(words[i + 1] ?? '')) return false;
    const near = [...words.slice(i + 1, i + 1 + COUNT_AFTER), ...words.slice(Math.max(0, i - COUNT_BEFORE), i)];
    if (near.some(counted)) return true;
    // "the number of IPR penalties assessed in FY 2011 was 167": the count said of the counted noun before it
    const named = words.slice(0, i).findIndex((x, j) => /^(?:number|total|count)$/i.test(x) && /^of$/i.test(words[j + 1] ?? '') && words.slice(j + 2, j + 2 + COUNT_AFTER).some(counted));
    return named >= 0;
  });
}

/**
 * The words a "how many" question counts: the phrase after "how many" up to its first function word or auxiliary ("how
 * many international caps did …" → international caps, "how many seizures of circumvention devices" → seizures, "how
 * many countries took part in" → countries took part: a verb after the noun is not told from it); [] for other questions.
 */
export function countedWords(question: string): string[] {
  const m = question.match(/\bhow\s+many\s+((?:[\p{L}\p{N}'-]+\s*){1,4})/iu);
  if (!m) return [];
  const ws = m[1]!.trim().split(/\s+/);
  const end = ws.findIndex((w) => STOP_WORDS.has(w.toLowerCase()) || VERB_AFTER_NOUN.test(w.toLowerCase()));
  return end < 0 ? ws : ws.slice(0, end);
}

/** Whether the year at `at` stands alone in brackets right after a capitalised word: the year of a cited work ("Report (2010)"). */
function citedYear(text: string, at: number, length: number): boolean {
  return /(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}]*\s*\(\s*$/u.test(text.slice(0, at)) && /^\s*\)/.test(text.slice(at + length));
}
