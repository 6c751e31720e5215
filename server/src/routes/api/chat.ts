import Router from '@koa/router';
import { z } from 'zod';
import { publicError, toQuireError } from '../../http/middleware.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { CHAT_MODES, answer, apiAnswer, apiMessage, apiSession, deleteSession, loadSession, messageCount, readableSessions, sessionMessages } from '@quire/engine';
import { openSse } from '../../services/chat-sse.js';
import { knowledgeBaseFor, loadCollection } from '@quire/engine';

const TAG = 'Chat';
const uuid = z.string().uuid();

const ChatBody = z
  .object({
    message: z.string().trim().min(1).max(8000),
    knowledge_base_id: uuid.optional().describe("omitted: the session's knowledge base, else the organization's default_knowledge_base_id"),
    organization_id: uuid.optional().describe('the organization whose default knowledge base applies when knowledge_base_id is omitted'),
    session_id: uuid.optional(),
    mode: z.enum(CHAT_MODES).default('quick'),
    stream: z.boolean().default(false),
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }).strict())
      .max(50)
      .optional(),
  })
  .strict();

const ANSWER_SHAPE =
  '{session_id, message_id, knowledge_base_id, message, citations: [{chunk_id, document_id, document_name, page, content, score, metadata}], confidence (0..1), mode, answer_type (value: a typed value, one sentence or one table cell with its row and column labels | passage: "The documents say: …", whole sentences quoted | none: the refusal), grounded (every quote and number checked against the cited sources; true), answered_by (llm: the LLM\'s answer, checked | offline), fallback_reason (llm_unavailable: the LLM failed after its retries | ungrounded: its quotes or numbers are not in the cited sources | null), response_time_ms, created_at, usage: {credits}}';

export function chatRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/chat',
      summary:
        `Ask a knowledge base. Body {message, knowledge_base_id? (omitted: the session's, else the default_knowledge_base_id of organization_id (or the X-Organization-Id header); 400 when none), organization_id?, session_id? (continue a session; a new one is made without it), mode? (quick default | deep | code), stream? (boolean), history? ([{role, content}] instead of the session's stored turns)}. ` +
        `JSON response: ${ANSWER_SHAPE}; the message quotes its sources with [n] markers, citations[n-1] being source n. ` +
        'With stream true (or Accept: text/event-stream) the response is Server-Sent Events: `start` {type, session_id, message_id, knowledge_base_id, mode}, `delta` {type, content} (pieces of the message, in order), ' +
        '`complete` {type, result: the JSON response}, or `error` {type, error: {code, message}}; the stream ends after complete or error. Costs 0.1 credit a query.',
      tag: TAG,
      body: ChatBody,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const wantsStream = body.stream || /\btext\/event-stream\b/.test(ctx.get('accept'));
      const knowledgeBaseId = await knowledgeBaseFor(rt.store, auth, { ...body, organization_id: body.organization_id ?? (ctx.get('x-organization-id') || null) });
      const req = { message: body.message, knowledgeBaseId, sessionId: body.session_id, mode: body.mode, history: body.history };
      if (!wantsStream) return apiAnswer(await answer(rt, auth, req));
      // fail before streaming on what can be checked up front (unknown knowledge base or session: 404 JSON)
      await loadCollection(rt, auth, knowledgeBaseId, 'read', 'knowledge base');
      if (body.session_id) await loadSession(rt, auth, body.session_id, 'write');
      const sse = openSse(ctx);
      void (async () => {
        try {
          const result = await answer(rt, auth, {
            ...req,
            signal: sse.signal,
            onStart: (info) => sse.send({ type: 'start', ...info }, 'start'),
            onDelta: (content) => sse.send({ type: 'delta', content }, 'delta'),
          });
          sse.send({ type: 'complete', result: apiAnswer(result) }, 'complete');
        } catch (e) {
          if (!sse.closed) {
            const err = toQuireError(e);
            if (err.code === 'INTERNAL_ERROR') ctx.state.log?.error({ err: e }, 'chat stream failed');
            const pub = publicError(e, ctx.state.requestId);
            sse.send({ type: 'error', error: { code: pub.code, message: pub.message } }, 'error');
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
    {
      method: 'get',
      path: '/api/chat/sessions',
      summary: "The caller's chat sessions, newest activity first: {sessions: [{id, knowledge_base_id, title, message_count, created_at, updated_at}], total, has_more}; query knowledge_base_id filters.",
      tag: TAG,
      query: z.object({ knowledge_base_id: uuid.optional(), limit: z.coerce.number().int().min(1).max(100).default(20), offset: z.coerce.number().int().min(0).default(0) }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const readable = await readableSessions(rt, auth, query.knowledge_base_id);
      const [rows, total] = [readable.slice(query.offset, query.offset + query.limit), readable.length];
      const counts = await Promise.all(rows.map((s) => messageCount(rt, s.id)));
      return { sessions: rows.map((s, i) => apiSession(s, counts[i])), total, has_more: query.offset + rows.length < total };
    },
  );

  route(router, { method: 'get', path: '/api/chat/sessions/:id', summary: 'One chat session: {session: {id, knowledge_base_id, title, message_count, created_at, updated_at}}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const s = await loadSession(ctx.quire, auth, ctx.params.id!);
    return { session: apiSession(s, await messageCount(ctx.quire, s.id)) };
  });

  route(
    router,
    {
      method: 'get',
      path: '/api/chat/sessions/:id/messages',
      summary:
        'The turns of a session, oldest first: {session_id, messages: [{id, session_id, role (user | assistant), content, created_at, and for answers: query, mode, citations [{chunk_id, document_id, document_name, page, score}], confidence, response_time_ms, feedback (thumbs_up | thumbs_down | null)}]}. An answer\'s id is the message_id of feedback.',
      tag: TAG,
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const s = await loadSession(ctx.quire, auth, ctx.params.id!);
      return { session_id: s.id, messages: (await sessionMessages(ctx.quire, s.id)).map(apiMessage) };
    },
  );

  route(router, { method: 'delete', path: '/api/chat/sessions/:id', summary: 'Delete a chat session and its messages: {success: true, id}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const s = await loadSession(ctx.quire, auth, ctx.params.id!, 'write');
    await deleteSession(ctx.quire, s);
    return { success: true, id: s.id };
  });
}
