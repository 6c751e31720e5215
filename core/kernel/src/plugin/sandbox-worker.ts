/**
 * A reader isolate of ReaderSandbox: loads the reader plugins it is asked for (and the selected OCR plugin)
 * into a registry of its own and reads documents one at a time.
 */
import { isolatePort } from '../util/worker.js';
import { heapTrimmer } from '../util/heap-trim.js';
import { jsonPieces } from '../util/json-pieces.js';
import { PluginRegistry, parseUse } from './registry.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ocrPendingOf } from './kinds.js';
import type { ChunkerPlugin, ReaderPlugin, ReadOptions } from './kinds.js';
import type { SandboxRequest, SandboxResponse, SandboxWorkerData } from './sandbox.js';
import { revive, serialiseError } from './sandbox.js';
import type { ParsedDocument } from '../model/content.js';

/** Chunks sent back in one message at most. */
const CHUNKS_PER_MESSAGE = 256;

const { data: raw, port } = isolatePort();
const data = raw as SandboxWorkerData;
const registry = new PluginRegistry(data.settings);
const loaded = new Map<string, Promise<ReaderPlugin>>();
let ocrReady: Promise<void> | null = null;
const running = new Map<number, AbortController>();
const calls = new Map<number, { resolve(d: ParsedDocument): void; reject(e: unknown): void }>();
let nextCall = 1;
let current = 0;

// readers that stay in the parent thread answer through it
for (const d of data.delegates) {
  registry.register({
    kind: 'reader',
    name: d.name,
    core: '^1',
    create: () => ({
      formats: d.formats,
      isolated: true,
      read: (input, options) =>
        new Promise<ParsedDocument>((resolve, reject) => {
          const call = nextCall++;
          calls.set(call, { resolve, reject });
          const { signal: _s, onProgress: _p, ...plain } = options;
          send({ type: 'delegate', id: current, call, reader: d.name, input: { ...input }, options: plain });
        }),
    }),
  });
}
const delegatesReady = Promise.all(data.delegates.map((d) => registry.instantiate('reader', d.name)));

function ocr(): Promise<void> {
  if (!ocrReady) {
    ocrReady = (async () => {
      if (!data.ocr) return;
      try {
        // the engines a router names in its uses, loaded first (it makes them when it is made)
        for (const u of data.ocr.uses ?? []) await registry.load(u.origin.spec, u.origin.baseDir).catch(() => undefined);
        await registry.load(data.ocr.origin.spec, data.ocr.origin.baseDir);
        await registry.instantiate('ocr', data.ocr.name);
      } catch {
        // readers that need OCR say so themselves when ctx.get('ocr') finds nothing
      }
    })();
  }
  return ocrReady;
}

function reader(name: string, origin: { spec: string; baseDir: string }): Promise<ReaderPlugin> {
  let p = loaded.get(name);
  if (!p) {
    p = (async () => {
      await ocr();
      await delegatesReady;
      await registry.load(origin.spec, origin.baseDir);
      // the readers it uses ('reader:<format>'), as the host chose them, are there before it is made
      for (const use of registry.definition('reader', name)?.uses ?? []) {
        const { target } = parseUse(use);
        const chosen = target.startsWith('reader:') ? data.settings.readers?.[target.slice(7)] : undefined;
        const from = chosen && chosen !== name && !data.delegates.some((d) => d.name === chosen) ? data.readerOrigins[chosen] : undefined;
        if (from) await reader(chosen!, from);
      }
      return registry.instantiate('reader', name);
    })();
    loaded.set(name, p);
    p.catch(() => loaded.delete(name));
  }
  return p;
}

const chunkers = new Map<string, Promise<ChunkerPlugin>>();
function chunker(name: string, origin: { spec: string; baseDir: string }): Promise<ChunkerPlugin> {
  let p = chunkers.get(name);
  if (!p) {
    p = (async () => {
      await registry.load(origin.spec, origin.baseDir);
      return registry.instantiate('chunker', name);
    })();
    chunkers.set(name, p);
    p.catch(() => chunkers.delete(name));
  }
  return p;
}

const send = (m: SandboxResponse) => port.postMessage(m);

/**
 * After the chunks of a large document (its JSON of TRIM_JSON_BYTES or more: about 250 pages of a PDF; the
 * PDF reader's documents come here past 400 pages), what the isolate grew is given back once it is idle
 * (heapTrimmer): the service goes on with the document meanwhile. Not after smaller tasks, whose next one
 * would pay for the young generation growing again (heapTrimmer).
 */
const TRIM_JSON_BYTES = 4 * 1024 * 1024;
const trimmer = heapTrimmer();

port.on('message', (m: SandboxRequest) => {
  if (m.type === 'abort') {
    running.get(m.id)?.abort(new Error('aborted'));
    return;
  }
  if (m.type === 'delegated') {
    const c = calls.get(m.call);
    calls.delete(m.call);
    if (m.error) c?.reject(revive(m.error));
    else c?.resolve(m.doc!);
    return;
  }
  current = m.id;
  const controller = new AbortController();
  running.set(m.id, controller);
  trimmer.busy();
  void (async () => {
    try {
      if (m.type === 'chunk') {
        const c = await chunker(m.chunker.name, m.chunker.origin);
        if ((await fs.stat(m.path)).size >= TRIM_JSON_BYTES) trimmer.due();
        const doc = JSON.parse(await fs.readFile(m.path, 'utf8')) as ParsedDocument;
        const chunks = c.chunk(doc, m.options);
        // in parts: one message of a large document's chunks (tens of MB) is decoded in one go on the
        // parent's event loop
        for (let i = 0; i < chunks.length; i += CHUNKS_PER_MESSAGE) send({ type: 'chunks', id: m.id, chunks: chunks.slice(i, i + CHUNKS_PER_MESSAGE) });
        send({ type: 'done', id: m.id, chunks: [] });
        return;
      }
      const r = await reader(m.reader.name, m.reader.origin);
      let last = '';
      const readOptions: ReadOptions = {
        ...m.options,
        signal: controller.signal,
        onProgress: (f, pages) => {
          const rounded = Math.round(f * 100) / 100;
          // a page count that moved is sent even when the rounded fraction did not
          const key = pages ? `${rounded}:${pages.done}/${pages.total}` : String(rounded);
          if (key !== last) {
            last = key;
            send({ type: 'progress', id: m.id, fraction: rounded, ...(pages ? { pages: { done: pages.done, total: pages.total } } : {}) });
          }
        },
      };
      if (m.ocrPages && typeof r.ocrPages !== 'function') throw new Error(`reader ${m.reader.name} cannot OCR single pages`);
      const doc = m.ocrPages ? await r.ocrPages!(m.input, m.ocrPages, readOptions) : await r.read(m.input, readOptions);
      if (m.jsonPath) {
        // written here and streamed into storage by the parent: a large document's JSON (tens of MB) never
        // crosses the IPC channel, where the parent would decode it in one go on its event loop
        // (in pieces: never the whole JSON as one string, see jsonPieces)
        await fs.mkdir(path.dirname(m.jsonPath), { recursive: true, mode: 0o700 });
        await fs.writeFile(m.jsonPath, jsonPieces(doc), { mode: 0o600 });
        send({ type: 'done', id: m.id, json: { file: m.jsonPath, pages: doc.pages.length, ocrPages: doc.pages.filter((p) => p.ocr).length, ocrPending: ocrPendingOf(doc), issues: doc.issues } });
      }
      else send({ type: 'done', id: m.id, doc });
    } catch (e) {
      send({ type: 'error', id: m.id, error: serialiseError(e) });
    } finally {
      running.delete(m.id);
      if (!running.size) trimmer.idle();
    }
  })();
});
