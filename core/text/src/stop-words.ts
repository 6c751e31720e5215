/**
 * The English stop words of the search side, one list for both of its users:
 * - the local embedder leaves them out of its hashed word features (it has no IDF, so without this list
 *   "the", "of"... would dominate every vector) and does not build bigrams across them;
 * - the embedded vector store leaves them out of its keyword (BM25) terms, so a query's function words
 *   neither match everything nor count in a chunk's length.
 * Using the same list keeps the two halves of a hybrid search agreeing on what a content word is. The
 * words are lower case and diacritic-free, as both tokenisers produce them (runs of letters and digits:
 * there is no apostrophe form; "I'm" arrives as "i" + "m", and "im", "dont" are the forms typed without one).
 *
 * Changing this list changes the local embedder's vectors: bump its FEATURE_VERSION with it (the vector
 * space id), or stored vectors and new query vectors stop being comparable.
 */
// prettier-ignore
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'because',
  'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'down',
  'during', 'each', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself',
  'him', 'himself', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'more', 'most', 'my',
  'myself', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'ourselves', 'out',
  'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them',
  'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very',
  'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with', 'would', 'you',
  'your', 'yours', 'yourself', 'yourselves', 'also', 'may', 'might', 'must', 'shall', 'let', 'us', 'via', 'per', 'within',
  'without', 'upon', 'whether', 'yet', 'many', 'much', 'get', 'got', 'im', 'ive', 'dont', 'cant', 'etc',
]);

/**
 * Words that frame a question or request rather than name what it is about ("tell me", "please explain",
 * "give", "kind of"): the chat answerer leaves them out of a question's terms together with STOP_WORDS.
 * Separate from STOP_WORDS so that the search side's features stay as they are.
 */
// prettier-ignore
export const QUESTION_WORDS: ReadonlySet<string> = new Set([
  'nor', 'yes', 'onto', 'done', 'mine', 'whose', 'whatever', 'whoever', 'whichever', 'whenever', 'wherever', 'ever', 'even',
  'still', 'tell', 'please', 'explain', 'describe', 'give', 'show', 'find', 'know', 'say', 'said', 'says', 'make', 'made',
  'like', 'one', 'ones', 'thing', 'things', 'something', 'anything', 'someone', 'anyone', 'kind', 'kinds', 'sort', 'sorts', 'way', 'lot', 'lots',
]);
