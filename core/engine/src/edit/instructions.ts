/**
 * Instructions in plain language → values of elements. Offline, the text is cut into statements ("My
 * name is Jane Doe", "born 4 April 1990", "I am a US citizen", "check the box for X", "date of birth
 * 1990-04-01", "City: Oslo") that become (label, value) or (checkbox, state) pairs, matched to the form's
 * labels (match.ts). With an LLM configured, the model maps the instructions to element ids instead, and
 * the offline reading fills what the model left out.
 */
import type { EditElement, LlmPlugin } from '@quire/core';
import { scanDates } from '@quire/fields';
import { bestElement, fold, rankElements } from './match.js';
import { fitValue, multiChoice, optionFor } from './values.js';
import type { Vocabulary } from './match.js';

export interface Derived {
  elementId: string;
  value: string | boolean;
  reasoning: string;
  confidence: number;
}

interface Statement {
  label: string;
  value: string | boolean;
  checkbox: boolean;
  text: string;
  /** a bare value that names an option of a radio or dropdown ("female") */
  option?: boolean;
}

/** "and" in the languages instructions are read in (English, French, German, Spanish, Dutch) */
const AND = String.raw`(?:and|et|und|y|en)`;
/** words a statement starts with: "I", "my", "born", "check" and their French, German, Spanish, Dutch kin */
const KEYWORD = new RegExp(String.raw`^(?:${AND}\s+)?(?:i|my|our|i'm|born|check|tick|uncheck|untick|please|set|fill|je|j'|mon|ma|mes|notre|ich|mein|meine|unser|unsere|yo|mi|mis|nuestro|nuestra|ik|mijn|onze|ons|n[ée]e?|geboren|nac[ií]|nacid[oa]|cochez|cocher|kreuzen|marque|marcar|vink)(?=\s|$|')`, 'iu');
/** possessives and articles before a label ("mon prénom", "mein Vorname", "mi nombre", "mijn achternaam") */
const OWNER = String.raw`(?:my|our|the|mon|ma|mes|notre|le|la|les|mein|meine|unser|unsere|der|die|das|mi|mis|nuestro|nuestra|el|la|mijn|onze|ons|de|het)`;
/** "is" ("est", "ist", "es", "lautet", "is") between a label and its value */
const IS = String.raw`(?:is|are|est|sont|ist|sind|lautet|es|son|is|zijn)`;
/** born on / in, in the five languages */
const BORN = /\b(?:born|n[ée]e?|geboren|nac[ií]|nacid[oa]|nacimiento)\b/iu;
const MIN_LABEL = 0.75;

/** The words of a clause that name an element at its start ("last name" of "last name Doe"), with the score. */
function leadingLabel(clause: string, elements: EditElement[], vocab: Vocabulary): { label: string; rest: string; score: number } | null {
  const ws = clause.split(/\s+/);
  const found: { label: string; rest: string; score: number }[] = [];
  for (let n = 1; n <= Math.min(6, ws.length - 1); n++) {
    // a label's words end where a number starts ("home telephone (217) 555-0134", "postal code K1A 0B1")
    if (n > 1 && /^\(?\d|\d/u.test(ws[n - 1]!)) break;
    const label = ws.slice(0, n).join(' ');
    const hit = bestElement(label, elements, vocab, { min: MIN_LABEL });
    if (hit) found.push({ label, rest: ws.slice(n).join(' '), score: hit.score });
  }
  // the longest run of words that names a field about as well as the best ("first name Jane", not "first")
  const top = Math.max(0, ...found.map((f) => f.score));
  return found.filter((f) => f.score >= top - 0.1).pop() ?? null;
}

/** The option-bearing element a bare value names, if any. */
const optionElement = (value: string, elements: EditElement[]) => elements.find((e) => (e.type === 'radio' || (e.type === 'dropdown' && !e.multi)) && optionFor(e, value) !== null);

/**
 * Cuts a sentence at its commas and "and"s where a new statement starts: a statement word ("my", "born",
 * "check"), words naming an element of the form ("last name Doe"), or an option of one ("female"). Other
 * commas stay inside the value ("12 Elm Street, Apt 4").
 */
function clausesOf(sentence: string, elements: EditElement[], vocab: Vocabulary): string[] {
  const parts = sentence.split(new RegExp(String.raw`\s*,\s+|\s+${AND}\s+`, 'i'));
  const seps = sentence.match(new RegExp(String.raw`\s*,\s+|\s+${AND}\s+`, 'gi')) ?? [];
  const out: string[] = [];
  parts.forEach((part, i) => {
    const p = part.trim();
    if (!p) return;
    const starts = i === 0 || KEYWORD.test(p) || (elements.length > 0 && (leadingLabel(p, elements, vocab) !== null || (/^(?::|=)/.test(p) === false && optionElement(p, elements) !== undefined && !multiOption(out[out.length - 1] ?? '', p, elements))));
    if (starts || !out.length) out.push(p);
    else out[out.length - 1] += `${seps[i - 1] ?? ', '}${p}`;
  });
  return out;
}

/** "Planets: Earth, Mars": a value that continues a list of options of one multi-choice element. */
function multiOption(previous: string, part: string, elements: EditElement[]): boolean {
  return elements.some((e) => multiChoice(e) && optionFor(e, part) !== null && previous.split(/[\s,:]+/).some((w) => optionFor(e, w) !== null));
}

/** Statements of the instructions, in order; with the form's elements, clauses are cut where they name one. */
export function statements(instructions: string, elements: EditElement[] = [], vocab: Vocabulary = []): Statement[] {
  const out: Statement[] = [];
  // a full stop before a digit or a small letter ends an abbreviation ("Social security no. 123"), not a
  // sentence; nor does one inside a date ("am 4. März 1985")
  const dates = scanDates(instructions);
  const sentences: string[] = [];
  let from = 0;
  for (const m of instructions.matchAll(/(?<=[;!?\n])\s+|(?<=\.)\s+(?![\p{Ll}\p{N}])|\n+/gu)) {
    if (dates.some((d) => m.index! > d.start && m.index! < d.end)) continue;
    sentences.push(instructions.slice(from, m.index).trim());
    from = m.index! + m[0].length;
  }
  sentences.push(instructions.slice(from).trim());
  void sentences.splice(0, sentences.length, ...sentences.filter(Boolean));
  const clauses = sentences
    .flatMap((sentence) => (elements.length ? clausesOf(sentence.replace(/[.;!]+$/, ''), elements, vocab) : sentence.split(/,\s+(?=(?:and\s+)?(?:i|my|i'm|born|check|tick|uncheck|please|date|set|fill)\b)|\s+and\s+(?=(?:i|my|i'm|born|check|tick|uncheck)\b)/i)))
    .map((c) => c.trim().replace(/[.;!]+$/, '').trim())
    .filter(Boolean);
  for (const c of clauses) {
    let m: RegExpExecArray | null;
    if ((m = /^(?:and\s+)?(?:please\s+)?(check|tick|select|mark|uncheck|untick|clear)\s+(?:the\s+)?(?:box\s+)?(?:for\s+|of\s+|that says\s+)?(.+)$/i.exec(c))) {
      out.push({ label: m[2]!, value: !/^un|clear/i.test(m[1]!), checkbox: true, text: c });
      continue;
    }
    if ((m = /^(?:and\s+)?(?:i\s+was\s+|i'm\s+|i\s+am\s+)?born\s+(?:on\s+|in\s+)?(.+)$/i.exec(c))) {
      out.push({ label: 'date of birth', value: m[1]!, checkbox: false, text: c });
      continue;
    }
    // "je suis née le 4 avril 1990", "ich bin am 4. März 1985 geboren", "nací el 4 de abril de 1990": the date of a birth
    if (BORN.test(c)) {
      const d = scanDates(c)[0];
      if (d) {
        out.push({ label: 'date of birth', value: c.slice(d.start, d.end), checkbox: false, text: c });
        continue;
      }
    }
    if ((m = new RegExp(String.raw`^(?:${AND}\s+)?${OWNER}\s+(.+?)\s+(?:${IS}|=|:)\s+(.+)$`, 'iu').exec(c)) || (m = new RegExp(String.raw`^(?:${AND}\s+)?(?:set\s+|fill\s+)?(.+?)\s*(?::|=|\bto\b|\b${IS}\b)\s+(.+)$`, 'iu').exec(c))) {
      if (!/^i\b/i.test(m[1]!)) {
        out.push({ label: m[1]!, value: m[2]!.replace(/^["']|["']$/g, ''), checkbox: false, text: c });
        continue;
      }
    }
    if ((m = /^(?:and\s+)?(?:i\s+am|i'm)\s+(not\s+)?(?:an?\s+)?(.+)$/i.exec(c))) {
      out.push({ label: m[2]!, value: !m[1], checkbox: true, text: c });
      continue;
    }
    // "last name Doe": words naming an element, then its value
    const lead = elements.length ? leadingLabel(c.replace(new RegExp(String.raw`^(?:${AND}\s+)?${OWNER}\s+`, 'iu'), ''), elements, vocab) : null;
    if (lead && lead.rest) {
      out.push({ label: lead.label, value: lead.rest, checkbox: false, text: c });
      continue;
    }
    // "female": an option of a radio or dropdown on its own
    if (optionElement(c, elements)) {
      out.push({ label: '', value: c, checkbox: false, option: true, text: c });
      continue;
    }
    // "date of birth 1990-04-01": a label followed by a date
    const d = scanDates(c)[0];
    if (d && d.start > 0) out.push({ label: c.slice(0, d.start).trim(), value: c.slice(d.start, d.end), checkbox: false, text: c });
  }
  return out;
}

/**
 * The elements the statements name, with the value and why. A value goes only into an element that can hold
 * it (fitValue): the best-named element of a kind that takes it, the part of it that element takes.
 */
export function applyOffline(instructions: string, elements: EditElement[], vocab: Vocabulary, taken = new Set<string>()): Derived[] {
  const out: Derived[] = [];
  const give = (e: EditElement, stated: string | boolean, why: string, confidence: number) => {
    const fit = fitValue(e, stated);
    if (!fit) return false;
    // a multi choice named again ("check SQL Server. Check Oracle too"): its options gathered
    const before = multiChoice(e) ? out.find((d) => d.elementId === e.id) : undefined;
    if (before) {
      const joined = fitValue(e, `${String(before.value)}, ${String(fit.value)}`);
      if (joined) before.value = joined.value;
      before.reasoning += `; ${why}`;
      return true;
    }
    taken.add(e.id);
    out.push({ elementId: e.id, value: fit.value, reasoning: fit.note ? `${why} (${fit.note})` : why, confidence });
    return true;
  };
  for (const s of statements(instructions, elements, vocab)) {
    if (s.checkbox) {
      const found = bestElement(s.label, elements, vocab, { types: ['checkbox'], taken });
      // "check SQL Server and Oracle": options of a multi choice ("check all that apply"), ticked with the ones named before
      const many = s.value === true ? elements.find((e) => multiChoice(e) && fitValue(e, s.label) !== null && (!taken.has(e.id) || out.some((d) => d.elementId === e.id))) : undefined;
      const hit = found && !multiChoice(found.element) && !(many && found.score < 0.95) ? found : null;
      if (!hit && many) {
        give(many, s.label, `"${s.text}" ticks options of "${many.label}"`, 0.8);
        continue;
      }
      if (hit) {
        give(hit.element, s.value, `"${s.text}" ${s.value ? 'checks' : 'unchecks'} "${hit.element.label}"`, Math.min(0.95, hit.score));
      } else {
        // "I am a citizen of X": a radio or dropdown option may say it
        const opt = elements.find((e) => !taken.has(e.id) && (e.type === 'radio' || e.type === 'dropdown') && optionFor(e, s.label) !== null && fold(optionFor(e, s.label)!) !== '');
        if (opt) give(opt, s.label, `"${s.text}" chooses an option of "${opt.label}"`, 0.8);
      }
      continue;
    }
    const value = String(s.value).trim();
    const types: EditElement['type'][] = ['text_field', 'date_field', 'number_field', 'dropdown', 'radio', 'checkbox'];
    if (s.option) {
      const e = elements.find((x) => !taken.has(x.id) && (x.type === 'radio' || (x.type === 'dropdown' && !x.multi)) && optionFor(x, value) !== null);
      if (e) give(e, value, `"${s.text}" is an option of "${e.label}"`, 0.8);
      continue;
    }
    // a full name for a form that asks first and last name apart
    if (/^(full\s+)?name$/i.test(s.label.trim())) {
      const parts = value.split(/\s+/);
      const first = bestElement('first name', elements, vocab, { types, taken, min: 0.8 });
      const last = bestElement('last name', elements, vocab, { types, taken, min: 0.8 });
      if (first && last && first.element.id !== last.element.id && parts.length >= 2) {
        give(first.element, parts.slice(0, -1).join(' '), `"${s.text}": the first name`, 0.8);
        give(last.element, parts[parts.length - 1]!, `"${s.text}": the last name`, 0.8);
        continue;
      }
    }
    // the best-named element that can hold the value (a date field is passed over for "female")
    let given = false;
    for (const hit of rankElements(s.label, elements, vocab, { types, taken })) {
      // of the checkboxes, a multi choice alone takes a value ("databases: SQL Server and Oracle")
      if (hit.element.type === 'checkbox' && !multiChoice(hit.element)) continue;
      if ((given = give(hit.element, value, `"${s.text}" gives "${hit.element.label}"`, Math.min(0.95, hit.score)))) break;
    }
    // "Type of return: original": the one choice among whose options the value is
    if (!given) {
      const choices = elements.filter((x) => !taken.has(x.id) && (x.type === 'radio' || (x.type === 'dropdown' && !x.multi)) && optionFor(x, value) !== null);
      if (choices.length === 1) give(choices[0]!, value, `"${s.text}" names an option of "${choices[0]!.label}"`, 0.7);
    }
  }
  return out;
}

/** The model's mapping of instructions to element ids (ids it invents are dropped). */
export async function applyLlm(llm: LlmPlugin, instructions: string, elements: EditElement[], signal?: AbortSignal): Promise<Derived[]> {
  const list = elements.map((e) => ({ id: e.id, type: e.type, label: e.label, ...(e.options ? { options: e.options } : {}), ...(e.multi ? { multi: true } : {}), ...(e.format ? { format: e.format } : {}) }));
  const res = await llm.complete({
    messages: [
      { role: 'system', content: 'You fill forms. Given the form elements and the user instructions, answer JSON {"fills":[{"elementId","value","reasoning"}]} with only elements the instructions give a value for. Checkboxes take true or false; radios and dropdowns one of their options; a field marked multi a comma-separated list of its options. Never invent values.' },
      { role: 'user', content: `Elements:\n${JSON.stringify(list)}\n\nInstructions:\n${instructions}` },
    ],
    jsonSchema: {
      name: 'fills',
      schema: { type: 'object', properties: { fills: { type: 'array', items: { type: 'object', properties: { elementId: { type: 'string' }, value: {}, reasoning: { type: 'string' } }, required: ['elementId', 'value'] } } }, required: ['fills'] },
    },
    temperature: 0,
    signal,
  });
  let parsed: { fills?: { elementId?: unknown; value?: unknown; reasoning?: unknown }[] } = {};
  try {
    parsed = JSON.parse(res.content.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return [];
  }
  const byId = new Map(elements.map((e) => [e.id, e]));
  const out: Derived[] = [];
  for (const f of parsed.fills ?? []) {
    const e = typeof f.elementId === 'string' ? byId.get(f.elementId) : undefined;
    if (!e || f.value === null || f.value === undefined) continue;
    // a value the element cannot hold (a name for a date field) is dropped, a longer one narrowed
    const fit = fitValue(e, typeof f.value === 'boolean' ? f.value : String(f.value));
    if (!fit) continue;
    const why = typeof f.reasoning === 'string' ? f.reasoning : 'mapped by the language model';
    out.push({ elementId: e.id, value: fit.value, reasoning: fit.note ? `${why} (${fit.note})` : why, confidence: 0.85 });
  }
  return out;
}
