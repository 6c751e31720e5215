import { checkOptions, definePlugin, errors, QuireError, z } from '@quire/core';
import type { EmbedderPlugin, Logger } from '@quire/core';

/** Options of the OpenAI-compatible embedder (plugin options `embedder:openai`), with their defaults. */
export const OPENAI_EMBEDDER_OPTIONS = z.strictObject({
  /** OpenAI-compatible API base, e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (QUIRE_EMBEDDINGS_BASE_URL); needed to use it */
  baseUrl: z.url({ error: 'not a URL' }).optional(),
  /** QUIRE_EMBEDDINGS_MODEL */
  model: z.string().min(1).default('text-embedding-3-small'),
  /** QUIRE_EMBEDDINGS_API_KEY */
  apiKey: z.string().min(1).optional(),
  /** inputs per request */
  batchSize: z.number().int().min(1).max(2048).default(64),
  /** requests in flight at once */
  concurrency: z.number().int().min(1).max(16).default(2),
  /** retries after a 429, a 5xx, a timeout or a network error */
  maxRetries: z.number().int().min(0).max(20).default(4),
  /** first backoff delay, ms; doubles each retry, with jitter */
  retryBaseMs: z.number().int().min(0).max(60_000).default(500),
  /** longest wait honoured from Retry-After or backoff, ms */
  maxRetryDelayMs: z.number().int().min(0).max(600_000).default(30_000),
  /** time limit of one request, ms */
  timeoutMs: z.number().int().min(100).max(600_000).default(60_000),
  /** the expected dimension; learned from the first response when omitted */
  dimension: z.number().int().min(1).optional(),
  /** longer inputs are cut to this many characters (about 6000 tokens) */
  maxInputChars: z.number().int().min(1).max(10_000_000).default(24_000),
  /** prepended to query texts, for models trained with one (e.g. 'search_query: ' for nomic-embed-text, 'query: ' for e5) */
  queryPrefix: z.string().default(''),
  /** prepended to document texts (e.g. 'search_document: ', 'passage: ') */
  documentPrefix: z.string().default(''),
});

export type OpenAIEmbedderOptions = z.input<typeof OPENAI_EMBEDDER_OPTIONS> & { logger?: Logger };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A failure worth retrying (rate limit, server error, timeout, connection problem). */
class Retryable extends Error {
  constructor(message: string, readonly retryAfterMs: number | null, readonly details: Record<string, unknown>) {
    super(message);
  }
}

/**
 * Client of an OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Azure-style proxies, Ollama, vLLM,
 * TEI, LiteLLM…): batches inputs, retries 429/5xx/timeouts with exponential backoff and jitter (honouring
 * Retry-After), checks every response and reports failures as UPSTREAM_ERROR.
 */
export class OpenAIEmbedder implements EmbedderPlugin {
  readonly space: string;
  private readonly url: string;
  private readonly o: z.output<typeof OPENAI_EMBEDDER_OPTIONS> & { baseUrl: string; logger?: Logger };
  private learned: number | null;
  private lastOk = 0;

  constructor(options: OpenAIEmbedderOptions) {
    if (!options.baseUrl) throw errors.validation('embedder openai: baseUrl is required (QUIRE_EMBEDDINGS_BASE_URL)', { option: 'baseUrl' });
    const { logger, ...rest } = options;
    this.o = { ...checkOptions(OPENAI_EMBEDDER_OPTIONS, rest, 'embedder:openai'), baseUrl: new URL(options.baseUrl).href.replace(/\/+$/, ''), logger };
    this.learned = this.o.dimension ?? null;
    this.url = `${this.o.baseUrl}/embeddings`;
    this.space = `openai:${this.o.model}`;
  }

  /** The vector length: the configured one, else the one learned from the first response (0 before). */
  get dimension(): number {
    return this.learned ?? 0;
  }

  async embed(texts: string[], purpose: 'document' | 'query' = 'document'): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const prefix = purpose === 'query' ? this.o.queryPrefix : this.o.documentPrefix;
    const inputs = texts.map((t) => {
      const s = prefix + String(t ?? '').slice(0, this.o.maxInputChars);
      return s.trim() ? s : ' '; // the API refuses empty strings
    });
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += this.o.batchSize) batches.push(inputs.slice(i, i + this.o.batchSize));
    const results: Float32Array[][] = new Array(batches.length);
    let next = 0;
    let failed = false;
    if (this.learned === null) results[next++] = await this.request(batches[0]!); // learns the dimension first
    const worker = async () => {
      while (next < batches.length && !failed) {
        const i = next++;
        try {
          results[i] = await this.request(batches[i]!);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency, batches.length - next) }, worker));
    return results.flat();
  }

  private async request(batch: string[]): Promise<Float32Array[]> {
    let attempt = 0;
    for (;;) {
      try {
        const out = await this.once(batch);
        this.lastOk = Date.now();
        return out;
      } catch (e) {
        if (!(e instanceof Retryable)) throw e;
        if (attempt >= this.o.maxRetries) {
          throw errors.upstream(`${e.message} (gave up after ${attempt + 1} attempt${attempt ? 's' : ''})`, { ...e.details, attempts: attempt + 1 });
        }
        const backoff = Math.min(this.o.maxRetryDelayMs, this.o.retryBaseMs * 2 ** attempt * (0.5 + Math.random() * 0.5));
        const wait = e.retryAfterMs !== null ? Math.min(this.o.maxRetryDelayMs, Math.max(e.retryAfterMs, backoff / 2)) : backoff;
        this.o.logger?.warn({ url: this.url, attempt: attempt + 1, waitMs: Math.round(wait), reason: e.message }, 'embeddings request failed; retrying');
        attempt++;
        await sleep(wait);
      }
    }
  }

  private async once(batch: string[]): Promise<Float32Array[]> {
    const details = { url: this.url, model: this.o.model };
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.o.model, input: batch, encoding_format: 'float' }),
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError') {
        throw new Retryable(`embeddings request to ${this.url} timed out after ${this.o.timeoutMs} ms`, null, { ...details, reason: 'timeout' });
      }
      const why = err.cause?.code ?? err.cause?.message ?? err.message;
      throw new Retryable(`embeddings endpoint ${this.url} is not reachable: ${why}`, null, { ...details, reason: why });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new Retryable(`embeddings response from ${this.url} was cut off: ${(e as Error).message}`, null, details);
    }
    if (!res.ok) {
      const message = providerMessage(text);
      const msg = `embeddings request to ${this.url} failed: HTTP ${res.status}${message ? `: ${message}` : ''}`;
      if (res.status === 429 || res.status >= 500) throw new Retryable(msg, retryAfter(res.headers.get('retry-after')), { ...details, status: res.status });
      throw errors.upstream(msg, { ...details, status: res.status });
    }
    return this.parse(text, batch.length, details);
  }

  private parse(text: string, expected: number, details: Record<string, unknown>): Float32Array[] {
    const bad = (why: string) => errors.upstream(`embeddings response from ${this.url} is not usable: ${why}`, details);
    let body: { data?: { embedding?: unknown; index?: number }[] };
    try {
      body = JSON.parse(text);
    } catch {
      throw bad('not JSON');
    }
    const data = body?.data;
    if (!Array.isArray(data)) throw bad('no data array');
    if (data.length !== expected) throw bad(`${data.length} embeddings for ${expected} inputs`);
    const ordered = data.every((d) => typeof d?.index === 'number') ? [...data].sort((a, b) => a.index! - b.index!) : data;
    return ordered.map((d, i) => {
      const v = toVector(d?.embedding);
      if (!v) throw bad(`item ${i} has no embedding`);
      if (this.learned === null) this.learned = v.length;
      else if (v.length !== this.learned) throw bad(`an embedding of dimension ${v.length}; expected ${this.learned}`);
      return v;
    });
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    if (Date.now() - this.lastOk < 60_000) return { ok: true, message: `${this.url} (${this.o.model})` };
    try {
      const probe = new OpenAIEmbedder({ ...this.o, dimension: this.learned ?? undefined, maxRetries: 0, timeoutMs: Math.min(this.o.timeoutMs, 10_000) });
      await probe.embed(['health check'], 'query');
      this.lastOk = Date.now();
      return { ok: true, message: `${this.url} (${this.o.model})` };
    } catch (e) {
      return { ok: false, message: e instanceof QuireError ? e.message : `embeddings endpoint ${this.url}: ${(e as Error).message}` };
    }
  }
}

function toVector(e: unknown): Float32Array | null {
  if (Array.isArray(e) && e.length && e.every((x) => typeof x === 'number' && Number.isFinite(x))) return Float32Array.from(e as number[]);
  if (typeof e === 'string' && e.length) {
    // encoding_format=base64 (some servers default to it): little-endian float32
    const b = Buffer.from(e, 'base64');
    if (b.length % 4 || !b.length) return null;
    const v = new Float32Array(b.length / 4);
    for (let i = 0; i < v.length; i++) v[i] = b.readFloatLE(i * 4);
    return v;
  }
  return null;
}

function providerMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
    const m = typeof j.error === 'string' ? j.error : j.error?.message ?? j.message ?? j.detail;
    if (m) return String(m).slice(0, 500);
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 300);
}

/** Retry-After in seconds or as an HTTP date → milliseconds. */
function retryAfter(h: string | null): number | null {
  if (!h) return null;
  const s = Number(h);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(h);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : null;
}

/**
 * Embedder over an OpenAI-compatible /embeddings endpoint. Options: OPENAI_EMBEDDER_OPTIONS (baseUrl, model
 * and apiKey come from QUIRE_EMBEDDINGS_*); the model defaults to text-embedding-3-small.
 */
export default definePlugin({
  kind: 'embedder',
  name: 'openai',
  core: '^1',
  description: 'OpenAI-compatible /embeddings client (OpenAI, Ollama, vLLM, TEI).',
  options: OPENAI_EMBEDDER_OPTIONS,
  create(ctx) {
    return new OpenAIEmbedder({ ...ctx.options, logger: ctx.logger });
  },
});
