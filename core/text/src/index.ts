export {};
export { stem } from './stem.js';
export { STOP_WORDS, QUESTION_WORDS } from './stop-words.js';
export { synonymsOf, synonymWordsOf } from './synonyms.js';
export { round } from './round.js';
export { decodeText, encodingMetadata, repairMojibake, mojibakeBudget, type Decoded, type MojibakeBudget } from './encoding.js';
export { foldMarks, foldsToItself, letterOrDigitAt, letterDigitRuns } from './runs.js';
export { normaliseForMatch, quoteInText, numbersOf, unsupportedNumbers } from './grounding.js';
export { parseJsonObject } from './json.js';
export {
  alternativesOf, words, terms, termSet, labelConcepts, labelExpansion, isFollowUp, splitSentences, unitsOf, lineNumberGutter, codeLineScore, codeLikeness, codeBlocksOf, guessLanguage, decompose, questionTerms, kindTerms, focusTerms, subjectVerb, questionPredicate,
  LOWER_WORD, hasName, holdsNames, labelValue, labelWithoutColon, isLabelLine,
  type Unit, type CodeBlock, type LabelValue, type LabelForm,
} from './question.js';
export { ABBREVIATED_WORDS, LEXICON, type LexiconEntry } from './lexicon.js';
export { KIND_TERMS, kindWords, LanguageCounts } from './document-kinds.js';
export { abbreviationAsked, capitalsIn, definitionsOf, printsAbbreviation, shortFormAsked, longFormEnd, type Definition, type DefinitionKind } from './abbreviations.js';
export { optionGroups, type MarkedOption, type OptionGroup } from './options.js';
export { contactAsked, contactValues, ibanValid, type ContactForm, type ContactValue } from './contacts.js';
export { rowLookupAsked, cellKey, type RowLookup } from './row-lookup.js';
export { townsIn, townAsked, type AddressTown } from './addresses.js';
