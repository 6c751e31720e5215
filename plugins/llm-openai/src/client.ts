/**
 * OpenAI-compatible chat-completions client on fetch: JSON-schema output (with json_object, then prompt-only
 * fallbacks for servers that refuse it), retries with backoff on timeouts, 429/5xx, network errors and
 * answers that are not the JSON asked for, a per-attempt timeout,
 * caller abort signals, and token streaming over Server-Sent Events.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { abortError, errors, isQuireError } from '@quire/core';
import type { LlmMessage, LlmPlugin, Logger } from '@quire/core';
import { silentLogger } from '@quire/core';
import { parseJsonObject } from '@quire/text';

export interface OpenAiChatOptions {
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** per-attempt time limit, default 120 000 ms */
  timeoutMs?: number;
  /** attempts in all (first try included), default 3 */
  maxAttempts?: number;
  /** first backoff delay, doubled per retry (with jitter), default 500 ms */
  retryBaseMs?: number;
  /** longest wait honoured from a Retry-After header, default 30 000 ms */
  maxRetryAfterMs?: number;
  /** extra request headers */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  logger?: Logger;
}

export interface CompleteRequest {
  messages: LlmMessage[];
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface StreamRequest {
  messages: LlmMessage[];
  /** asks for JSON as complete() does; the deltas are pieces of it, to be parsed once all have come */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface CompleteResult {
  content: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

/** A 2xx answer whose content is not the JSON object asked for: retried like a transient failure. */
class MalformedAnswer extends Error {}

/** An HTTP answer that was not 2xx, kept to decide on retries and the json_schema fallback. */
class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly retryAfterMs: number | null,
  ) {
    super(`HTTP ${status}`);
  }
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

/** The server's own error message when the body is the usual {error: {message}} shape. */
function serverMessage(body: string): string {
  try {
    const j = JSON.parse(body);
    const m = j?.error?.message ?? j?.message ?? j?.detail ?? j?.error;
    if (typeof m === 'string') return m.slice(0, 300);
  } catch {
    /* not JSON */
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** Whether a refusal is about the response_format (so a json_object retry can help). */
function rejectsJsonSchema(f: HttpFailure): boolean {
  return [400, 404, 415, 422, 500, 501].includes(f.status) && /response_format|json_schema|structured|schema/i.test(f.body);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal.reason));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError(signal!.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class OpenAiChatClient implements LlmPlugin {
  readonly model: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly logger: Logger;
  /** how JSON is asked for: json_schema until the server refuses it, then json_object, then the prompt alone (kept for the process) */
  private jsonMode: 'schema' | 'object' | 'prompt' = 'schema';

  constructor(private readonly opts: OpenAiChatOptions) {
    if (!opts.baseUrl) throw errors.validation('LLM base URL is required (QUIRE_LLM_BASE_URL)');
    if (!opts.model) throw errors.validation('LLM model is required (QUIRE_LLM_MODEL)');
    this.model = opts.model;
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.retryBaseMs = opts.retryBaseMs ?? 500;
    this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 30_000;
    this.fetchImpl = opts.fetch ?? fetch;
    this.logger = opts.logger ?? silentLogger;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...this.opts.headers };
    if (this.opts.apiKey) h.authorization = `Bearer ${this.opts.apiKey}`;
    return h;
  }

  /**
   * One POST with retries. `consume` reads the successful response inside the attempt (so a body read that
   * fails or times out is retried too, unless `consume` already handed data to the caller).
   */
  private async post<T>(body: Record<string, unknown>, signal: AbortSignal | undefined, consume: (res: Response, attemptSignal: AbortSignal) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      if (signal?.aborted) throw abortError(signal.reason);
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let retryAfter: number | null = null;
      try {
        const res = await this.fetchImpl(this.url, { method: 'POST', headers: this.headers(), body: JSON.stringify(body), signal: attemptSignal });
        if (!res.ok) {
          const text = await res.text().catch(() => '');
          throw new HttpFailure(res.status, text, parseRetryAfter(res.headers.get('retry-after')));
        }
        return await consume(res, attemptSignal);
      } catch (e) {
        if (signal?.aborted) throw abortError(signal.reason);
        if (timeout.aborted) {
          lastError = errors.upstream(`LLM request timed out after ${Math.round(this.timeoutMs / 1000)} s${attempt > 1 ? ` (${attempt} attempts)` : ''} (${this.url})`, { timeout_ms: this.timeoutMs });
        } else if (isQuireError(e)) throw e;
        if (e instanceof HttpFailure) {
          if (!RETRYABLE_STATUS.has(e.status)) throw e;
          retryAfter = e.retryAfterMs;
        }
        if (!timeout.aborted) lastError = e;
        if (attempt === this.maxAttempts) break;
        const backoff = this.retryBaseMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
        const wait = retryAfter !== null ? Math.min(Math.max(retryAfter, backoff), this.maxRetryAfterMs) : backoff;
        this.logger.warn({ attempt, status: e instanceof HttpFailure ? e.status : undefined, err: (lastError as Error).message, wait_ms: Math.round(wait) }, 'LLM request failed, retrying');
        await sleep(wait, signal);
      }
    }
    throw this.toUpstream(lastError, this.maxAttempts);
  }

  private toUpstream(e: unknown, attempts: number): Error {
    if (isQuireError(e)) return e as Error;
    if (e instanceof MalformedAnswer) return errors.upstream(`LLM answer is not a JSON object${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${e.message}`, { url: this.url });
    if (e instanceof HttpFailure) {
      return errors.upstream(`LLM server answered HTTP ${e.status}${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${serverMessage(e.body) || '(no message)'}`, { status: e.status, url: this.url });
    }
    const cause = (e as Error)?.cause as Error | undefined;
    const msg = [(e as Error)?.message, cause?.message].filter(Boolean).join(': ');
    return errors.upstream(`LLM server unreachable at ${this.url}${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${msg || String(e)}`, { url: this.url });
  }

  private baseBody(req: { messages: LlmMessage[]; temperature?: number; maxTokens?: number }): Record<string, unknown> {
    const body: Record<string, unknown> = { model: this.model, messages: req.messages, temperature: req.temperature ?? 0 };
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    return body;
  }

  async complete(req: CompleteRequest): Promise<CompleteResult> {
    const readJson = async (res: Response): Promise<CompleteResult> => {
      const text = await res.text();
      let j: any;
      try {
        j = JSON.parse(text);
      } catch {
        throw new MalformedAnswer(`the server's body is not JSON: ${text.slice(0, 200)}`);
      }
      const choice = j?.choices?.[0];
      const content = choice?.message?.content;
      if (typeof content !== 'string') {
        const refusal = choice?.message?.refusal;
        throw errors.upstream(refusal ? `LLM refused: ${String(refusal).slice(0, 300)}` : 'LLM response has no choices[0].message.content', { url: this.url });
      }
      return { content, usage: { prompt_tokens: Number(j?.usage?.prompt_tokens ?? 0), completion_tokens: Number(j?.usage?.completion_tokens ?? 0) } };
    };

    if (!req.jsonSchema) return this.wrap(() => this.post(this.baseBody(req), req.signal, readJson));
    // the content must be the JSON object asked for; anything else is retried like a transient failure
    const readObject = async (res: Response): Promise<CompleteResult> => {
      const r = await readJson(res);
      if (!parseJsonObject(r.content)) throw new MalformedAnswer(r.content.replace(/\s+/g, ' ').slice(0, 200));
      return r;
    };

    return this.withJsonMode({ ...req, jsonSchema: req.jsonSchema }, (body) => this.post(body, req.signal, readObject));
  }

  /**
   * The request body asking for JSON the way this server takes it: response_format json_schema, else
   * json_object with the schema in the system prompt, else the prompt alone; a refusal of the way tried
   * moves on to the next, for this call and every later one.
   */
  private async withJsonMode<T>(req: { messages: LlmMessage[]; jsonSchema: { name: string; schema: Record<string, unknown> }; temperature?: number; maxTokens?: number }, send: (body: Record<string, unknown>) => Promise<T>): Promise<T> {
    const instruction = `Answer with one JSON object only, no prose, that validates against this JSON Schema (named "${req.jsonSchema.name}"):\n${JSON.stringify(req.jsonSchema.schema)}`;
    const messages: LlmMessage[] = req.messages[0]?.role === 'system'
      ? [{ role: 'system', content: `${req.messages[0].content}\n\n${instruction}` }, ...req.messages.slice(1)]
      : [{ role: 'system', content: instruction }, ...req.messages];
    for (;;) {
      const mode = this.jsonMode;
      const body =
        mode === 'schema'
          ? { ...this.baseBody(req), response_format: { type: 'json_schema', json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true } } }
          : mode === 'object'
            ? { ...this.baseBody({ ...req, messages }), response_format: { type: 'json_object' } }
            : this.baseBody({ ...req, messages });
      try {
        return await send(body);
      } catch (e) {
        if (mode === 'prompt' || !(e instanceof HttpFailure && rejectsJsonSchema(e))) throw this.wrapError(e);
        this.jsonMode = mode === 'schema' ? 'object' : 'prompt';
        this.logger.info({ status: e.status, message: serverMessage(e.body) }, `LLM server refused response_format ${mode === 'schema' ? 'json_schema; using json_object' : 'json_object; asking for JSON in the prompt only'}`);
      }
    }
  }

  private async wrap<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.wrapError(e);
    }
  }

  private wrapError(e: unknown): unknown {
    if (e instanceof HttpFailure) return this.toUpstream(e, 1);
    return e;
  }

  /** Yields content deltas as they arrive. Retries happen only before the first byte of the answer. */
  async *stream(req: StreamRequest): AsyncIterable<string> {
    let attemptSignal!: AbortSignal;
    const send = (body: Record<string, unknown>) =>
      this.post({ ...body, stream: true }, req.signal, async (r, s) => {
        attemptSignal = s;
        if (!r.body) throw errors.upstream('LLM server sent an empty stream', { url: this.url });
        return r;
      });
    const res = req.jsonSchema ? await this.withJsonMode({ ...req, jsonSchema: req.jsonSchema }, send) : await this.wrap(() => send(this.baseBody(req)));
    const queue: string[] = [];
    let done = false;
    let failure: Error | null = null;
    const parser = createParser({
      onEvent: (ev: EventSourceMessage) => {
        if (done) return;
        const data = ev.data.trim();
        if (data === '[DONE]') {
          done = true;
          return;
        }
        if (!data) return;
        let j: any;
        try {
          j = JSON.parse(data);
        } catch {
          failure = errors.upstream(`LLM stream sent a line that is not JSON: ${data.slice(0, 200)}`, { url: this.url });
          return;
        }
        if (j?.error) {
          failure = errors.upstream(`LLM stream error: ${serverMessage(JSON.stringify(j))}`, { url: this.url });
          return;
        }
        const delta = j?.choices?.[0]?.delta?.content ?? j?.choices?.[0]?.text;
        if (typeof delta === 'string' && delta) queue.push(delta);
      },
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!done) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (e) {
          if (req.signal?.aborted) throw abortError(req.signal.reason);
          if (attemptSignal?.aborted) throw errors.upstream(`LLM stream timed out after ${Math.round(this.timeoutMs / 1000)} s`, { url: this.url });
          throw errors.upstream(`LLM stream broke: ${(e as Error).message}`, { url: this.url });
        }
        if (chunk.done) break;
        parser.feed(chunk.value);
        if (failure) throw failure;
        while (queue.length) yield queue.shift()!;
      }
      if (failure) throw failure;
      while (queue.length) yield queue.shift()!;
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    const url = `${this.opts.baseUrl.replace(/\/+$/, '')}/models`;
    try {
      const res = await this.fetchImpl(url, { headers: this.headers(), signal: AbortSignal.timeout(5000) });
      if (res.ok || res.status === 404) return { ok: true, message: `LLM ${this.model} at ${this.opts.baseUrl}` };
      return { ok: false, message: `LLM server at ${this.opts.baseUrl} answered HTTP ${res.status}` };
    } catch (e) {
      return { ok: false, message: `LLM server at ${this.opts.baseUrl} unreachable: ${(e as Error).message}` };
    }
  }
}
