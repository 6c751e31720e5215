/**
 * How a question describes a document other than by its name: "the short RTF file", "the Word file", "the Arabic article",
 * "the Korean brief", "the German test form". Its kind is the words for its file type, its language the one its script
 * names (Hangul: Korean) or whose function words it writes most (der, die, und: German). Kept as data
 * (core/text/lexicon/document-kinds.json).
 */
import fs from 'node:fs';
import { termSet } from './question.js';

interface DocumentKinds {
  kinds: Record<string, string[]>;
  scripts: Record<string, string>;
  languages: Record<string, string[]>;
  questions: string;
}

const DATA = JSON.parse(fs.readFileSync(new URL('../lexicon/document-kinds.json', import.meta.url), 'utf8')) as DocumentKinds;
const SCRIPTS = Object.entries(DATA.scripts).map(([name, re]) => ({ name, re: new RegExp(re, 'gu') }));
const FUNCTION_WORDS = new Map<string, string[]>();
for (const [name, ws] of Object.entries(DATA.languages)) for (const w of ws) FUNCTION_WORDS.set(w, [...(FUNCTION_WORDS.get(w) ?? []), name]);

/** a script whose letters are at least this share of a text's letters names its language */
const SCRIPT_SHARE = 0.3;
/** the function words of one language are at least this share of a text's words, and this many times the next language's */
const FUNCTION_SHARE = 0.06;
const FUNCTION_LEAD = 1.5;

/**
 * The terms of every kind and language: common words some of them ("word", "image", "scan"), they describe a document only as a
 * question names it, capitalised ("the Word file", "the Korean brief", "the RTF example").
 */
export const KIND_TERMS: ReadonlySet<string> = termSet([...Object.values(DATA.kinds).flat(), ...Object.keys(DATA.scripts), ...Object.keys(DATA.languages).filter((l) => l !== DATA.questions)].join(' '));

/** The terms of a file type's kind ("docx" → word, docx). */
export function kindWords(fileType: string): Set<string> {
  return termSet((DATA.kinds[fileType.toLowerCase()] ?? []).join(' '));
}

/** Counts a text's letters by script and its words by language, to be added up over a document's chunks (languageOf). */
export class LanguageCounts {
  letters = 0;
  words = 0;
  readonly script = new Map<string, number>();
  readonly function = new Map<string, number>();
  add(text: string): void {
    this.letters += (text.match(/\p{L}/gu) ?? []).length;
    for (const s of SCRIPTS) {
      const n = (text.match(s.re) ?? []).length;
      if (n) this.script.set(s.name, (this.script.get(s.name) ?? 0) + n);
    }
    for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
      this.words++;
      for (const l of FUNCTION_WORDS.get(w) ?? []) this.function.set(l, (this.function.get(l) ?? 0) + 1);
    }
  }
  /** the language's terms ("korean"), none when no script or language stands out */
  terms(): Set<string> {
    for (const [name, n] of this.script) if (this.letters && n / this.letters >= SCRIPT_SHARE) return termSet(name);
    const ranked = [...this.function].sort((a, b) => b[1] - a[1]);
    const [first, second] = ranked;
    if (first && first[0] !== DATA.questions && this.words && first[1] / this.words >= FUNCTION_SHARE && first[1] >= FUNCTION_LEAD * (second?.[1] ?? 0)) return termSet(first[0]);
    return new Set();
  }
}
