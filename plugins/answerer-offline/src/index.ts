import { definePlugin } from '@quire/core';
import type { AnswererPlugin } from '@quire/core';
import { answerQuestion, refusalFor } from './answer.js';

export { answerQuestion, refusalFor } from './answer.js';

/** The answerer without an LLM: quotes the sources, as a typed value, a passage or the refusal (src/answer.ts). */
export function createAnswerer(): AnswererPlugin {
  return { answer: answerQuestion, refusal: refusalFor };
}

export default definePlugin({
  kind: 'answerer',
  name: 'offline',
  core: '^1',
  description: 'Offline chat answers quoting the retrieved sources: a typed value, a cited passage or the refusal, with a confidence from what they stand on.',
  create: () => createAnswerer(),
});
