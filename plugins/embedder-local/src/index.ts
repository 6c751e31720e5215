import { Worker } from 'node:worker_threads';
import { definePlugin, errors, siblingModule, z } from '@quire/core';
import type { EmbedderPlugin } from '@quire/core';
import { DEFAULT_DIMENSION, FEATURE_VERSION, HashEmbedder } from './hash-embedder.js';

export { HashEmbedder, DEFAULT_DIMENSION, DEFAULT_WEIGHTS, normalizeText, words, cosine } from './hash-embedder.js';
export type { HashEmbedderOptions, FeatureWeights } from './hash-embedder.js';

/** The vector space id of the local embedder at a dimension. */
export const localSpace = (dimension: number) => `local-hash-${FEATURE_VERSION}-${dimension}`;

/**
 * Requests of at least this many texts go to the embedder's thread: a document's chunks are embedded there
 * while the calling thread writes the vectors of the batch before (see indexChunks); a query's text stays
 * in the calling thread (a round trip would cost more than its embedding).
 */
const THREAD_MIN_TEXTS = 4;

/**
 * A worker thread embedding with the same HashEmbedder (the same vectors). Started at its first request; it
 * keeps the process alive only while a request is pending. A thread that fails or exits is dropped: its
 * pending requests and the later ones are embedded in the calling thread.
 */
class EmbedThread {
  private worker: Worker | null = null;
  private broken = false;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void; texts: string[] }>();

  constructor(
    private readonly dimension: number,
    private readonly local: (texts: string[]) => Float32Array[],
  ) {}

  embed(texts: string[]): Promise<Float32Array[]> {
    const worker = this.start();
    if (!worker) return Promise.resolve(this.local(texts));
    const id = ++this.seq;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, texts });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, texts });
    });
  }

  private start(): Worker | null {
    if (this.worker || this.broken) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(siblingModule(import.meta.url, 'embed-worker'), { workerData: { dimension: this.dimension } });
    } catch {
      this.broken = true;
      return null;
    }
    worker.unref();
    worker.on('message', (m: { id: number; vectors?: Float32Array[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (!this.pending.size) worker.unref();
      if (m.vectors) p.resolve(m.vectors);
      else p.reject(new Error(m.error ?? 'embedding failed'));
    });
    const drop = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.broken = true;
      // what the thread had not answered is embedded here
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        try {
          p.resolve(this.local(p.texts));
        } catch (e) {
          p.reject(e as Error);
        }
      }
    };
    worker.on('error', drop);
    worker.on('exit', drop);
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.broken = true;
    if (w) await w.terminate();
  }
}

/**
 * Creates the embedder directly (without the registry). With `thread`, a request of several texts is
 * embedded in a worker thread of its own (see EmbedThread; close() stops it).
 */
export function createLocalEmbedder(options: { dimension?: number; thread?: boolean } = {}): EmbedderPlugin & { embedSync(text: string): Float32Array } {
  let embedder: HashEmbedder;
  try {
    embedder = new HashEmbedder({ dimension: options.dimension ?? DEFAULT_DIMENSION });
  } catch (e) {
    throw errors.validation(`embedder local: ${(e as Error).message}`, { option: 'dimension' });
  }
  const local = (texts: string[]) => texts.map((t) => embedder.embed(t));
  const thread = options.thread ? new EmbedThread(embedder.dimension, local) : null;
  return {
    space: localSpace(embedder.dimension),
    dimension: embedder.dimension,
    embedSync: (text) => embedder.embed(text),
    async embed(texts) {
      return thread && texts.length >= THREAD_MIN_TEXTS ? thread.embed(texts) : local(texts);
    },
    async health() {
      return { ok: true, message: `offline hashed n-gram embedder, ${embedder.dimension} dimensions` };
    },
    async close() {
      await thread?.close();
    },
  };
}

/**
 * Offline deterministic embedder (no model, no network): hashed word unigrams and bigrams plus character
 * 3/4-grams.
 */
export default definePlugin({
  kind: 'embedder',
  name: 'local',
  core: '^1',
  description: 'Offline deterministic embedder: hashed word and character n-grams.',
  options: z.strictObject({
    /** vector length (another length is another vector space: documents are embedded again) */
    dimension: z.number().int().min(16).max(8192).default(DEFAULT_DIMENSION),
  }),
  create(ctx) {
    return createLocalEmbedder({ dimension: ctx.options.dimension, thread: true });
  },
});
