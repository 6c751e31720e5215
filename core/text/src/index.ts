export {};
export { stem } from './stem.js';
export { STOP_WORDS, QUESTION_WORDS } from './stop-words.js';
export { synonymsOf, synonymWordsOf } from './synonyms.js';
export { round } from './round.js';
export { decodeText, type Decoded } from './encoding.js';
export { foldMarks, foldsToItself, letterDigitRuns } from './runs.js';
export { normaliseForMatch, quoteInText, numbersOf, unsupportedNumbers } from './grounding.js';
export { parseJsonObject } from './json.js';
