/**
 * The lexicon of business labels (core/text/lexicon/business-labels.json, kept as data): how documents print common
 * business terms in several languages. One source for the chat answerer (a label in a text counts as its
 * concept's English terms) and for extraction (each entry adds its labels to the field concept it names, and a
 * total label says which total it announces: `kind`).
 */
import fs from 'node:fs';

export interface LexiconEntry {
  id: string;
  /** the concept's English words (chat counts a label of another language as these) */
  terms: string;
  /** the field concept (concepts.ts) whose labels the entry adds to */
  concept?: string;
  /** for a total: what the label announces (grand: the final payable amount) */
  kind?: 'grand' | 'total' | 'subtotal';
  /** forms: words of personal-details forms and their answers, read by the editor only */
  scope?: 'forms';
  /** labels by language code */
  labels: Record<string, string[]>;
}

/** The lexicon's entries, in file order (src/ and dist/ both sit beside lexicon/). */
export const LEXICON: readonly LexiconEntry[] = (JSON.parse(fs.readFileSync(new URL('../lexicon/business-labels.json', import.meta.url), 'utf8')) as { concepts: LexiconEntry[] }).concepts;

/**
 * Words that business documents print abbreviated, by abbreviation ("doc" → document, "amt" → amount):
 * core/text/lexicon/word-abbreviations.json, kept as data.
 */
export const ABBREVIATED_WORDS: ReadonlyMap<string, string> = new Map(
  Object.entries((JSON.parse(fs.readFileSync(new URL('../lexicon/word-abbreviations.json', import.meta.url), 'utf8')) as { words: Record<string, string> }).words),
);
