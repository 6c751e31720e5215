import { definePlugin, errors, z } from '@quire/core';
import { OpenAiChatClient } from './client.js';

export { OpenAiChatClient } from './client.js';
export type { OpenAiChatOptions, CompleteRequest, CompleteResult, StreamRequest } from './client.js';

/**
 * OpenAI-compatible chat completions (OpenAI, Azure-compatible gateways, vLLM, llama.cpp, Ollama's /v1).
 * Usable only when QUIRE_LLM_BASE_URL is set (the service then selects it). Options (config
 * `plugins.options["llm:openai"]`): baseUrl, model, apiKey, timeoutMs (default 120000), maxAttempts
 * (default 3) (QUIRE_LLM_*), retryBaseMs (default 500).
 */
export default definePlugin({
  kind: 'llm',
  name: 'openai',
  core: '^1',
  description: 'OpenAI-compatible chat-completions provider with JSON-schema output, retries and timeouts.',
  options: z.strictObject({
    baseUrl: z.url().optional(),
    model: z.string().min(1).optional(),
    apiKey: z.string().min(1).optional(),
    timeoutMs: z.number().positive().optional(),
    maxAttempts: z.number().int().positive().optional(),
    retryBaseMs: z.number().positive().optional(),
  }),
  create(ctx) {
    const { baseUrl, model } = ctx.options;
    if (!baseUrl) {
      throw errors.validation('The llm plugin "openai" needs an OpenAI-compatible endpoint: set QUIRE_LLM_BASE_URL (e.g. https://api.openai.com/v1 or http://localhost:11434/v1) and QUIRE_LLM_MODEL');
    }
    if (!model) throw errors.validation(`The llm plugin "openai" needs a model name: set QUIRE_LLM_MODEL (endpoint ${baseUrl})`);
    return new OpenAiChatClient({ ...ctx.options, baseUrl, model, logger: ctx.logger });
  },
});
