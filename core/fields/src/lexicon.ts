/**
 * The lexicon of business labels lives in @quire/text (core/text/lexicon/business-labels.json), beside the
 * question code of the chat answerer that reads it too; extraction's field concepts take their labels from it.
 */
export { LEXICON, type LexiconEntry } from '@quire/text';
