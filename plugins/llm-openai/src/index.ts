import { definePlugin, errors } from '@quire/core';
import { OpenAiChatClient } from './client.js';

export { OpenAiChatClient, abortError } from './client.js';
export type { OpenAiChatOptions, CompleteRequest, CompleteResult, StreamRequest } from './client.js';

const num = (v: unknown, name: string): number | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw errors.validation(`llm:openai option ${name} must be a positive number, got ${JSON.stringify(v)}`);
  return n;
};

/**
 * OpenAI-compatible chat completions (OpenAI, Azure-compatible gateways, vLLM, llama.cpp, Ollama's /v1).
 * Usable only when QUIRE_LLM_BASE_URL is set. Options (config `plugins.options["llm:openai"]`):
 * timeoutMs (default 120000), maxAttempts (default 3), retryBaseMs (default 500), model (overrides QUIRE_LLM_MODEL).
 */
export default definePlugin({
  kind: 'llm',
  name: 'openai',
  core: '^1',
  description: 'OpenAI-compatible chat-completions provider with JSON-schema output, retries and timeouts.',
  create(ctx) {
    const llm = (ctx.config.llm ?? {}) as { baseUrl?: string; model?: string; apiKey?: string };
    if (!llm.baseUrl) {
      throw errors.validation('The llm plugin "openai" needs an OpenAI-compatible endpoint: set QUIRE_LLM_BASE_URL (e.g. https://api.openai.com/v1 or http://localhost:11434/v1) and QUIRE_LLM_MODEL');
    }
    const model = (ctx.options.model as string | undefined) ?? llm.model;
    if (!model) throw errors.validation(`The llm plugin "openai" needs a model name: set QUIRE_LLM_MODEL (endpoint ${llm.baseUrl})`);
    return new OpenAiChatClient({
      baseUrl: llm.baseUrl,
      model,
      apiKey: llm.apiKey,
      timeoutMs: num(ctx.options.timeoutMs, 'timeoutMs'),
      maxAttempts: num(ctx.options.maxAttempts, 'maxAttempts'),
      retryBaseMs: num(ctx.options.retryBaseMs, 'retryBaseMs'),
      logger: ctx.logger.child({ plugin: 'llm:openai' }),
    });
  },
});
