/**
 * The local embedder's thread: embeds the texts of a request with its own HashEmbedder and sends the vectors
 * back (their buffers transferred, not copied). The same code as in the calling thread: the same vectors.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HashEmbedder } from './hash-embedder.js';

const embedder = new HashEmbedder({ dimension: (workerData as { dimension: number }).dimension });

parentPort!.on('message', (m: { id: number; texts: string[] }) => {
  try {
    const vectors = m.texts.map((t) => embedder.embed(t));
    parentPort!.postMessage({ id: m.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error)?.message ?? String(e) });
  }
});
