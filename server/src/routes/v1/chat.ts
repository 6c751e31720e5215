import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { publicError, toQuireError } from '../../http/middleware.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { listOwned } from '@quire/engine';
import { CHAT_MODES, answer, loadSession } from '@quire/engine';
import type { ChatAnswer, ChatMode, ChatTurn } from '@quire/engine';
import { openSse } from '../../services/chat-sse.js';
import { loadCollection } from '@quire/engine';
import { epoch } from '@quire/engine';

const TAG = 'Chat completions (v1, OpenAI-compatible)';

const TextPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(TextPart), z.null()]).optional(),
});

/** OpenAI request fields are accepted (unknown ones ignored, as OpenAI-compatible servers do). */
const CompletionBody = z.looseObject({
  model: z.string().trim().min(1),
  messages: z.array(Message).min(1).max(200),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  /** extension: chat mode (also settable as a model suffix) */
  mode: z.enum(CHAT_MODES).optional(),
  /** extension: continue a stored chat session (its knowledge base must be the model's) */
  session_id: z.string().uuid().optional(),
  n: z.number().int().min(1).max(1).nullish(),
});

const MODEL_RE = /^(?:(?:kb|collection|knowledge-base):)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?::(quick|deep|code))?$/i;

/** `kb:<uuid>`, `collection:<uuid>` or a bare `<uuid>`, optionally followed by `:quick`, `:deep` or `:code`. */
export function parseModel(model: string): { knowledgeBaseId: string; mode?: ChatMode } {
  const m = model.trim().match(MODEL_RE);
  if (!m) throw errors.validation('model must name a knowledge base: kb:<uuid>, collection:<uuid> or <uuid>, optionally with :quick, :deep or :code', [{ field: 'body.model', message: 'not a knowledge base reference' }]);
  return { knowledgeBaseId: m[1]!.toLowerCase(), mode: m[2]?.toLowerCase() as ChatMode | undefined };
}

function textOf(content: z.infer<typeof Message>['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

function completionId(messageId: string): string {
  return `chatcmpl-${messageId.replace(/-/g, '')}`;
}

function citationsOut(a: ChatAnswer) {
  return a.citations;
}

export function chatCompletionRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/v1/chat/completions',
      summary:
        'OpenAI-compatible chat completions grounded on a knowledge base (works with OpenAI client libraries). `model` names the knowledge base: `kb:<uuid>`, `collection:<uuid>` or a bare `<uuid>`, optionally suffixed `:quick` (default), `:deep` or `:code`. ' +
        'The last user message is the question; earlier user/assistant turns are history; system/developer messages are extra instructions for the LLM (the grounding rules win). Extensions: `mode`, `session_id` (continue a stored session; else each call starts one). ' +
        'Response: {id, object: chat.completion, created, model, choices: [{index: 0, message: {role: assistant, content}, finish_reason: stop}], usage: {prompt_tokens, completion_tokens, total_tokens}, citations: [{chunk_id, document_id, document_name, page, content, score, metadata}], session_id, message_id, confidence, answer_type, grounded, answered_by (llm | offline), fallback_reason (llm_unavailable | ungrounded | null)}; [n] in the content is citations[n-1]. ' +
        'With stream: Server-Sent Events of chat.completion.chunk objects (a first delta with the role, content deltas, a last chunk with finish_reason stop and the extra `citations`, session_id, message_id, confidence, answer_type, grounded, answered_by, fallback_reason; with stream_options.include_usage a usage chunk), then `data: [DONE]`. Token counts are the LLM\'s, or estimates (4 characters a token) for the offline answerer. Errors use the application error body.',
      tag: TAG,
      body: CompletionBody,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const { knowledgeBaseId, mode: modelMode } = parseModel(body.model);
      const mode: ChatMode = body.mode ?? modelMode ?? 'quick';
      let last = -1;
      for (let i = body.messages.length - 1; i >= 0; i--)
        if (body.messages[i]!.role === 'user') {
          last = i;
          break;
        }
      const question = last >= 0 ? textOf(body.messages[last]!.content).trim() : '';
      if (!question) throw errors.validation('messages must end with a user message that has text', [{ field: 'body.messages', message: 'no user question' }]);
      if (question.length > 8000) throw errors.validation('The question is longer than 8000 characters', [{ field: `body.messages.${last}.content`, message: 'too long' }]);
      const history: ChatTurn[] = body.messages
        .slice(0, last)
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) }))
        .filter((m) => m.content.trim());
      const instructions = body.messages
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => textOf(m.content))
        .join('\n')
        .trim();
      const kb = await loadCollection(rt, auth, knowledgeBaseId, 'read', 'knowledge base');
      if (body.session_id) await loadSession(rt, auth, body.session_id, 'write');
      const model = body.model;
      const req = { message: question, knowledgeBaseId: kb.id, sessionId: body.session_id, mode, history, instructions: instructions || undefined };

      if (!body.stream) {
        const a = await answer(rt, auth, req);
        return {
          id: completionId(a.message_id),
          object: 'chat.completion',
          created: epoch(new Date(a.created_at)),
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: a.message, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: a.usage.prompt_tokens, completion_tokens: a.usage.completion_tokens, total_tokens: a.usage.prompt_tokens + a.usage.completion_tokens },
          citations: citationsOut(a),
          session_id: a.session_id,
          message_id: a.message_id,
          confidence: a.confidence,
          answer_type: a.answer_type,
          grounded: a.grounded,
          answered_by: a.answered_by,
          fallback_reason: a.fallback_reason,
        };
      }

      const sse = openSse(ctx);
      const created = Math.floor(Date.now() / 1000);
      let id = '';
      const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
      void (async () => {
        try {
          const a = await answer(rt, auth, {
            ...req,
            signal: sse.signal,
            onStart: (info) => {
              id = completionId(info.message_id);
              sse.send(chunk({ role: 'assistant', content: '' }, null));
            },
            onDelta: (content) => sse.send(chunk({ content }, null)),
          });
          sse.send(chunk({}, 'stop', { citations: citationsOut(a), session_id: a.session_id, message_id: a.message_id, confidence: a.confidence, answer_type: a.answer_type, grounded: a.grounded, answered_by: a.answered_by, fallback_reason: a.fallback_reason }));
          if (body.stream_options?.include_usage) sse.send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: a.usage.prompt_tokens, completion_tokens: a.usage.completion_tokens, total_tokens: a.usage.prompt_tokens + a.usage.completion_tokens } });
          sse.send('[DONE]');
        } catch (e) {
          if (!sse.closed) {
            const err = toQuireError(e);
            if (err.code === 'INTERNAL_ERROR') ctx.state.log?.error({ err: e }, 'chat completion stream failed');
            // the application error body, as the one event before the end (OpenAI clients raise it)
            sse.send({ error: publicError(e, ctx.state.requestId) });
          }
        } finally {
          sse.end();
        }
      })();
      return undefined;
    },
  );

  route(
    router,
    { method: 'get', path: '/v1/models', summary: 'The knowledge bases the caller can chat with, as OpenAI models: {object: list, data: [{id: kb:<uuid>, object: model, created, owned_by, name}]}', tag: TAG },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const { rows } = await listOwned(ctx.quire.store, 'collections', auth, {}, { limit: 100, offset: 0, orderBy: 'created_at' });
      return { object: 'list', data: rows.map((c) => ({ id: `kb:${c.id}`, object: 'model', created: epoch(c.created_at), owned_by: c.organization_id ?? c.user_id, name: c.name })) };
    },
  );
}
