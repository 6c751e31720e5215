import Router from '@koa/router';
import { z } from 'zod';
import { QuireError, errors } from '@quire/core';
import type { FieldDefinition, ParsedDocument } from '@quire/core';
import type { AuthInfo } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { resolveInput } from '@quire/engine';
import { runExtraction } from '@quire/engine';
import type { ExtractionRunResult } from '@quire/engine';
import { suggestFor, suggestSchema } from '@quire/engine';
import { CHAT_MODES, answer, knowledgeBaseFor } from '@quire/engine';
import { contentKey, jobParsedKey, loadParsed } from '@quire/engine';
import type { Engine } from '@quire/engine';
import { parseSync } from '@quire/engine';

const TAG = 'Embed';
const uuid = z.string().uuid();

const REF = /^(svc|jobid):\/\/(.*)$/i;
/** svc:// and jobid:// references carry a UUID */
const reference = z
  .string()
  .trim()
  .min(1)
  .refine((v) => {
    const m = v.match(REF);
    return !m || uuid.safeParse(m[2]).success;
  }, 'a svc:// or jobid:// reference must carry a UUID');
const ParseAction = z.object({ input: reference, config: z.record(z.string(), z.unknown()).optional() }).strict();
const ExtractAction = z
  .object({ document_id: uuid.optional(), input: reference.optional(), schema_id: uuid.optional(), include_citations: z.boolean().default(false) })
  .strict()
  .superRefine((x, c) => {
    if (!x.document_id && !x.input) c.addIssue({ code: 'custom', path: ['document_id'], message: 'one of document_id or input is required' });
    if (x.document_id && x.input) c.addIssue({ code: 'custom', path: ['input'], message: 'give document_id or input, not both' });
  });
const ChatAction = z.object({ message: z.string().trim().min(1).max(8000), knowledge_base_id: uuid.optional(), organization_id: uuid.optional(), session_id: uuid.optional(), mode: z.enum(CHAT_MODES).default('quick') }).strict();

const EmbedBody = z
  .object({ action: z.enum(['parse', 'extract', 'chat']), parse: ParseAction.optional(), extract: ExtractAction.optional(), chat: ChatAction.optional() })
  .strict()
  .superRefine((b, c) => {
    if (!b[b.action]) c.addIssue({ code: 'custom', path: [b.action], message: `the "${b.action}" object is required for action ${b.action}` });
  });

/**
 * The embed `parse` input: an https URL or svc://<document_id>. Plain http is accepted only for hosts the
 * operator allow-listed (QUIRE_ALLOWED_HOSTS), i.e. services on the operator's own network.
 */
function checkEmbedInput(rt: Engine, input: string): void {
  if (input.startsWith('svc://') || /^https:\/\//i.test(input)) return;
  if (/^http:\/\//i.test(input)) {
    let host = '';
    try {
      const u = new URL(input);
      host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      const allowed = rt.config.network.allowedHosts.map((h) => h.toLowerCase());
      if (allowed.includes(host) || allowed.includes(`${host}:${u.port || '80'}`)) return;
    } catch {
      /* reported below */
    }
  }
  throw errors.validation('parse.input must be an https URL or an svc://<document_id> reference', [{ field: 'body.parse.input', message: 'not an https URL or svc:// reference' }]);
}

/** Parses an input as POST /api/parse does for JSON bodies (same steps, job record, credits and result). */
/** The embed `parse` action is the synchronous parse. */
const parseInput = (rt: Engine, auth: AuthInfo, input: string, config: unknown) => parseSync(rt, auth, { kind: 'input', input }, config, 'parse.config');

const NAMES = { schemaId: 'extract.schema_id', fields: 'extract.fields', description: 'extract.description' };

/** How the fields of an embed extraction were chosen. */
type DefinitionSource = { source: 'schema'; schema_id: string } | { source: 'suggested_schema'; schema_id: string; schema_name: string; score: number } | { source: 'detected_fields'; fields: string[] };

/**
 * extract: with schema_id, that schema. Without it, the prebuilt or saved schema that best fits the
 * document's labelled values (as GET /api/extract/suggested-schema picks it); when none fits, the
 * key-value fields the extractor detects in the document itself.
 */
async function embedExtract(rt: Engine, auth: AuthInfo, x: z.infer<typeof ExtractAction>): Promise<{ data: ExtractionRunResult; definition: DefinitionSource }> {
  if (x.schema_id) {
    const data = await runExtraction(rt, auth, { documentId: x.document_id, input: x.input, schemaId: x.schema_id, includeCitations: x.include_citations, names: NAMES });
    return { data, definition: { source: 'schema', schema_id: x.schema_id } };
  }
  let source: { documentId?: string; input?: string };
  let parsed: ParsedDocument;
  const ref = x.document_id ? `svc://${x.document_id}` : x.input!;
  const resolved = await resolveInput(rt, auth, ref, { allowJob: true });
  if (resolved.kind === 'document') {
    if (resolved.doc.status !== 'completed' || !resolved.doc.content_key) throw errors.conflict(`Document is ${resolved.doc.status}; extraction needs a processed document`, { status: resolved.doc.status });
    parsed = await loadParsed(rt, contentKey(resolved.doc.id));
    source = { documentId: resolved.doc.id };
  } else if (resolved.kind === 'job') {
    parsed = await loadParsed(rt, jobParsedKey(resolved.job.id));
    source = { input: ref };
  } else {
    // a URL is parsed once (a parse job, charged as a parse) and extracted from that job's content
    const p = await parseInput(rt, auth, resolved.url, undefined);
    parsed = p.parsed;
    source = { input: `jobid://${p.body.job_id}` };
  }
  const match = await suggestSchema(rt, auth, parsed);
  if (match) {
    const data = await runExtraction(rt, auth, { ...source, schemaId: match.id, includeCitations: x.include_citations, names: NAMES });
    return { data, definition: { source: 'suggested_schema', schema_id: match.id, schema_name: match.name, score: match.score } };
  }
  const detected = (await suggestFor(rt, parsed)).map(({ suggestionReason: _reason, ...f }) => f as FieldDefinition);
  if (!detected.length) throw new QuireError('UNPROCESSABLE', 'No schema_id given, no schema fits the document and it has no labelled values to extract; pass extract.schema_id', [{ field: 'body.extract.schema_id', message: 'required for this document' }]);
  const data = await runExtraction(rt, auth, { ...source, fields: detected, includeCitations: x.include_citations, names: NAMES });
  return { data, definition: { source: 'detected_fields', fields: detected.map((f) => f.name) } };
}

export function embedRoutes(router: Router<any, any>): void {
  const spec = {
    method: 'post' as const,
    summary:
      'One endpoint for embedded widgets (Bearer API key). Body {action: parse | extract | chat, <action>: {...}}. ' +
      'parse {input: https URL or svc://<document_id>, config?} → {action: parse, data: parse result}. ' +
      'extract {document_id (UUID) | input (svc://, jobid:// or URL), schema_id? (UUID), include_citations?} → {action: extract, data: extraction run result, definition: {source: schema | suggested_schema | detected_fields, ...}}; without schema_id the prebuilt or saved schema that best fits the document\'s labelled values is used (as GET /api/extract/suggested-schema picks it), else the key-value fields detected in the document itself (422 UNPROCESSABLE when it has none). ' +
      'chat {message, knowledge_base_id? (UUID; omitted: the session\'s, else the organization\'s default_knowledge_base_id), organization_id?, session_id? (UUID; a new session otherwise), mode? (quick default | deep | code)} → {action: chat, data: {message, citations: [{chunk_id, document_id, content, metadata: {type, index, document_name, page, score}}], session_id, message_id, confidence, mode}} (single JSON, no streaming). ' +
      'Invalid or missing action, object or fields and malformed UUIDs are 400 VALIDATION_ERROR; failures of the action keep their own error code.',
    tag: TAG,
    body: EmbedBody,
  };
  const handler = async (ctx: Parameters<Parameters<typeof route>[2]>[0], { body }: { body: z.infer<typeof EmbedBody> }) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    if (body.action === 'parse') {
      const p = body.parse!;
      checkEmbedInput(rt, p.input);
      return { action: 'parse', data: (await parseInput(rt, auth, p.input, p.config)).body };
    }
    if (body.action === 'extract') {
      const { data, definition } = await embedExtract(rt, auth, body.extract!);
      return { action: 'extract', data, definition };
    }
    const c = body.chat!;
    const a = await answer(rt, auth, { message: c.message, knowledgeBaseId: await knowledgeBaseFor(rt.store, auth, c, 'body.chat.knowledge_base_id'), sessionId: c.session_id, mode: c.mode });
    return {
      action: 'chat',
      data: {
        message: a.message,
        citations: a.citations.map((x) => ({ chunk_id: x.chunk_id, document_id: x.document_id, content: x.content, metadata: { ...x.metadata, document_name: x.document_name, page: x.page, score: x.score } })),
        session_id: a.session_id,
        message_id: a.message_id,
        confidence: a.confidence,
        answer_type: a.answer_type,
        mode: a.mode,
      },
    };
  };
  route(router, { ...spec, path: '/api/v1/embed' }, handler);
  route(router, { ...spec, path: '/v1/embed', summary: `Same endpoint as POST /api/v1/embed. ${spec.summary}` }, handler);
}
