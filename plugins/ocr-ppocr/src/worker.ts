/**
 * The thread that runs PP-OCR: onnxruntime-node's `session.run` computes on the calling thread (its promise
 * only defers the start), so the models run here and the thread that asked stays free. One Ppocr (one
 * session per model) per thread; one image at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isQuireError } from '@quire/core';
import { Ppocr } from './ppocr.js';
import type { PpocrConfig } from './ppocr.js';

const engine = new Ppocr({ ...(workerData as PpocrConfig), concurrency: 1 });
const running = new Map<number, AbortController>();

/** An error as plain data (a QuireError keeps its code, details and retryable flag). */
function plain(e: unknown) {
  const err = e as Error & { retryable?: boolean };
  if (isQuireError(e)) return { quire: true, code: e.code, message: e.message, details: e.details, retryable: err.retryable };
  return { quire: false, message: err?.message ?? String(e), name: err?.name };
}

parentPort!.on('message', async (m: { id: number; op: 'recognize' | 'health' | 'abort' | 'close'; imagePath?: string; language?: string; dpi?: number }) => {
  if (m.op === 'abort') return running.get(m.id)?.abort(new Error('aborted'));
  try {
    let value: unknown;
    if (m.op === 'recognize') {
      const ac = new AbortController();
      running.set(m.id, ac);
      try {
        value = await engine.recognize(m.imagePath!, { language: m.language, dpi: m.dpi, signal: ac.signal });
      } finally {
        running.delete(m.id);
      }
    } else if (m.op === 'health') value = await engine.health();
    else if (m.op === 'close') value = await engine.close();
    parentPort!.postMessage({ id: m.id, value });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: plain(e) });
  }
});
