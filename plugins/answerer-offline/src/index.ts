import fs from 'node:fs';
import { definePlugin, z } from '@quire/core';
import type { AnswererPlugin } from '@quire/core';
import { answerQuestion, refusalFor } from './answer.js';

export { answerQuestion, refusalFor } from './answer.js';
export type { AnswerTrace } from './answer.js';

/** Options of the offline answerer (plugin options `answerer:offline`). */
const OFFLINE_ANSWERER_OPTIONS = z.strictObject({
  /**
   * a file to which each answer's trace is appended as a line of JSON (the rule that answered, the quoted candidates' scores,
   * coverages, key term and rivals): for studying the answerer (bench/chat.ts --trace); off by default
   */
  trace: z.string().min(1).optional(),
});

/** The answerer without an LLM: quotes the sources, as a typed value, a passage or the refusal (src/answer.ts). */
export function createAnswerer(options: { trace?: string } = {}): AnswererPlugin {
  const file = options.trace;
  if (!file) return { answer: (req) => answerQuestion(req), refusal: refusalFor };
  return { answer: (req) => answerQuestion(req, (t) => fs.appendFileSync(file, `${JSON.stringify(t)}\n`)), refusal: refusalFor };
}

export default definePlugin({
  kind: 'answerer',
  name: 'offline',
  core: '^1',
  description: 'Offline chat answers quoting the retrieved sources: a typed value, a cited passage or the refusal, with a confidence from what they stand on.',
  options: OFFLINE_ANSWERER_OPTIONS,
  create: (ctx) => createAnswerer(ctx.options),
});
