/**
 * Contact details and bank identifiers as documents print them, found by their form: e-mail addresses, web addresses,
 * telephone numbers (after a telephone label, or in a form no other number has: "+49 6051 …", "(702) 939-3254",
 * "1-866-330-3304"), IBANs whose check digits hold (ISO 13616, mod 97) and BICs after their label.
 */

export type ContactForm = 'email' | 'web' | 'phone' | 'iban' | 'bic';

export interface ContactValue {
  form: ContactForm;
  value: string;
  /** where the value starts in the text */
  at: number;
  /** a telephone number's label, when it is a fax's */
  fax?: boolean;
}

const EMAIL = /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])/giu;
const WEB = /(?<![\w@./-])(?:https?:\/\/[^\s<>()|"“”]+|www\.[^\s<>()|"“”]+|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|dev|info|biz|eu|ca|at|de|ch|uk|nl|fr|be|it|es|se|dk|no|fi|pl|cz|au|nz|in|my|sg|kr|jp)(?:\/[^\s<>()|"“”]*)?)(?![\w@-])/giu;
const PHONE_LABEL = /(?:\b(?:tel|tele?phone|telefon|telefoon|t[ée]l[ée]phone|t[ée]l|phone|ph|fon|fax|telefax|mobile?|mob|cell|handy|mobil|gsm|hotline|call)\b\.?(?:\s?(?:no|nr|number|nummer)\b\.?)?\s*[:.]?\s*)$/iu;
const PHONE_VALUE = /\+?\(?\d[\d ()./-]{4,22}\d/gu;
/** a number written as telephone numbers are and other figures are not: "+49 6051 …", "(702) 939-3254", "1-866-330-3304", "02-788-4510" */
const PHONE_SHAPE = /^(?:\+\d{1,3}[ ./-]?\(?\d|\(\d{2,5}\)\s?\d{3,4}[ .-]?\d{3,4}$|(?:1[ .-])?\d{3}[.-]\d{3}[.-]\d{4}$|0\d{1,4}-\d{3,4}-\d{4}$)/u;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/gu;
const BIC_AFTER_LABEL = /\b(?:BIC|SWIFT)(?:[\s/-]*(?:BIC|SWIFT|code))?\s*[:.]?\s*([A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b/giu;

const digits = (v: string) => v.replace(/\D/g, '').length;

/** Whether an IBAN's check digits hold (the country and check digits moved to the end, letters as 10–35, mod 97 is 1). */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const n = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of n) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** Every contact value of `form` in a text, in order. */
export function contactValues(text: string, form: ContactForm): ContactValue[] {
  const out: ContactValue[] = [];
  const push = (value: string, at: number) => out.push({ form, value: value.replace(/[.,;:]+$/u, ''), at });
  switch (form) {
    case 'email':
      for (const m of text.matchAll(EMAIL)) push(m[0], m.index!);
      break;
    case 'web':
      for (const m of text.matchAll(WEB)) {
        // (a domain the text spells as part of a sentence's words, "e.g." or "i.e.", is none)
        if (/^(?:e\.g|i\.e)\b/iu.test(m[0])) continue;
        push(m[0], m.index!);
      }
      break;
    case 'phone':
      for (const m of text.matchAll(PHONE_VALUE)) {
        const v = m[0].trim();
        if (digits(v) < 6 || digits(v) > 15) continue;
        const before = text.slice(Math.max(0, m.index! - 40), m.index!);
        const label = before.match(PHONE_LABEL)?.[0];
        if (label || PHONE_SHAPE.test(v)) {
          push(v, m.index!);
          if (label && /\b(?:tele)?fax\b/i.test(label)) out.at(-1)!.fax = true;
        }
      }
      break;
    case 'iban':
      for (const m of text.matchAll(IBAN)) if (ibanValid(m[0])) push(m[0], m.index!);
      break;
    case 'bic':
      for (const m of text.matchAll(BIC_AFTER_LABEL)) push(m[1]!, m.index! + m[0].length - m[1]!.length);
      break;
  }
  return out;
}

/** the words that ask for each form ("What is the e-mail address of …", "Which web page lists …", "What is the IBAN of …") */
const ASKED: [ContactForm, RegExp][] = [
  ['email', /\be-?mail(?:\s+address)?\b/iu],
  ['web', /\b(?:web\s*site|web\s*page|web\s+address|url|home\s*page|internet\s+address)\b/iu],
  ['phone', /\b(?:(?:tele)?phone|fax|hotline|mobile)\s+number\b|\b(?:tele)?phone\b(?=\s*\?)/iu],
  ['iban', /\biban\b/iu],
  ['bic', /\b(?:bic|swift(?:\s+code)?)\b/iu],
];

/** The contact form a question asks for ("What e-mail address can … be reached at?"), or null: what or which, then its words. */
export function contactAsked(question: string): ContactForm | null {
  const head = question.match(/^\W*(?:(?:at|to|on|from|under|with)\s+)?(?:what|which)\b(.{0,60})/iu)?.[1];
  if (!head) return null;
  for (const [form, re] of ASKED) {
    const m = question.match(re);
    // (the words come early, as what the question asks for: not "how many groups are divided on its website")
    if (m && (head.search(re) >= 0 || /^\W*what\s+is\b/iu.test(question))) return form;
  }
  return null;
}
